import { AuthError } from './auth-error.js';
import type { TabCoordination } from './tab-coordination.js';

/**
 * `refreshed`: new cookies are set, by this tab (`byThisTab`) or by another one just before.
 * `refused`: the service turned the refresh token down, the session is over. `failed`: no answer
 * or a transient one (network, 429, 5xx); the session may still be good, and `error` says why.
 */
export type RefreshResult =
  | { outcome: 'refreshed'; byThisTab: boolean }
  | { outcome: 'refused' }
  | { outcome: 'failed'; error: AuthError };

export type RefreshOutcome = RefreshResult['outcome'];

/**
 * One refresh at a time, in this tab and across tabs. Calls refused at about the same moment
 * share one refresh; a call whose request left before a refresh finished (here or in another tab)
 * needs no refresh of its own, only a retry with the cookies that refresh set.
 */
export class SessionRefresher {
  private inFlight: Promise<RefreshResult> | undefined;

  /**
   * @param send sends the refresh and, when it succeeds (`byThisTab`), notes it itself
   *   (`tabs.noteRefresh`) before anything it schedules from the answer.
   */
  constructor(
    private readonly tabs: TabCoordination,
    private readonly send: () => Promise<RefreshResult>,
  ) {}

  /** @param sentAt when the refused request was sent (ms since the epoch). */
  refresh(sentAt: number): Promise<RefreshResult> {
    if (this.tabs.lastRefresh() > sentAt) return Promise.resolve(elsewhere);
    this.inFlight ??= this.tabs
      .exclusive((waited) =>
        // A tab that held the lock before us has refreshed (or tried: the retry will tell).
        waited || this.tabs.lastRefresh() > sentAt
          ? Promise.resolve(elsewhere)
          : this.sendAndNote(),
      )
      .catch((error: unknown): RefreshResult => ({
        outcome: 'failed',
        // The lock could not be had in time: another tab's refresh hangs.
        error:
          error instanceof AuthError
            ? error
            : new AuthError('NETWORK_ERROR', 'Another tab’s refresh did not finish in time', 0),
      }))
      .finally(() => {
        this.inFlight = undefined;
      });
    return this.inFlight;
  }

  private async sendAndNote(): Promise<RefreshResult> {
    const result = await this.send();
    // This tab's own success is noted by `send`: noted again here, later, it would look like
    // another tab's refresh to the renewal `send` scheduled, which would then skip its turn.
    if (result.outcome === 'refreshed' && !result.byThisTab) this.tabs.noteRefresh(Date.now());
    return result;
  }
}

const elsewhere: RefreshResult = { outcome: 'refreshed', byThisTab: false };
