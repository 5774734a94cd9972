import type { TabCoordination } from './tab-coordination.js';

/**
 * `refreshed`: new cookies are set. `refused`: the service turned the refresh token down, the
 * session is over. `failed`: no answer or a transient one (network, 429, 5xx); the session may
 * still be good.
 */
export type RefreshOutcome = 'refreshed' | 'refused' | 'failed';

/**
 * One refresh at a time, in this tab and across tabs. Calls refused at about the same moment
 * share one refresh; a call whose request left before a refresh finished (here or in another tab)
 * needs no refresh of its own, only a retry with the cookies that refresh set. If that other
 * refresh was refused, the retry is refused too and returned as it is: still one retry, no loop.
 */
export class SessionRefresher {
  private inFlight: Promise<RefreshOutcome> | undefined;

  constructor(
    private readonly tabs: TabCoordination,
    private readonly send: () => Promise<RefreshOutcome>,
  ) {}

  /** @param sentAt when the refused request was sent (ms since the epoch). */
  refresh(sentAt: number): Promise<RefreshOutcome> {
    if (this.tabs.lastRefresh() > sentAt) return Promise.resolve('refreshed');
    this.inFlight ??= this.tabs
      .exclusive((waited) =>
        // A tab that held the lock before us has refreshed; if it failed, the retry says so.
        waited || this.tabs.lastRefresh() > sentAt ? refreshed() : this.sendAndNote(),
      )
      // The lock could not be had in time (another tab's refresh hangs): as a failed refresh.
      .catch((): RefreshOutcome => 'failed')
      .finally(() => {
        this.inFlight = undefined;
      });
    return this.inFlight;
  }

  private async sendAndNote(): Promise<RefreshOutcome> {
    const outcome = await this.send();
    if (outcome === 'refreshed') this.tabs.noteRefresh(Date.now());
    return outcome;
  }
}

function refreshed(): Promise<RefreshOutcome> {
  return Promise.resolve('refreshed');
}
