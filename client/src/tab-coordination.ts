import type { SessionEndReason, User } from './types.js';

/**
 * `expiresIn` (seconds) and `sentAt` (ms since the epoch): the new access token's lifetime, as
 * the answer of the request sent at `sentAt` said it, so that every tab renews ahead of it.
 */
export type TabMessage =
  /** `since`: when the request that learned of the end was sent (ms since the epoch). */
  | { type: 'ended'; reason: SessionEndReason; since: number }
  | { type: 'signed-in'; user?: User; expiresIn?: number; sentAt?: number }
  /** A tab renewed the session: the others reschedule their renewal instead of sending one. */
  | { type: 'renewed'; expiresIn: number; sentAt: number };

/**
 * What the tabs of one app share. The cookies are shared by every tab, so one tab's refresh
 * renews the session for all of them; two tabs sending the same refresh token would look like
 * theft once the grace window has passed.
 */
export interface TabCoordination {
  /**
   * Runs `task` while no other tab runs one (Web Locks); in this tab only, without them. `waited`
   * says whether another tab held the lock first: it has just refreshed (or tried to).
   */
  exclusive<T>(task: (waited: boolean) => Promise<T>): Promise<T>;
  /** When a refresh last succeeded in any tab, in ms since the epoch; 0 if never. */
  lastRefresh(): number;
  noteRefresh(at: number): void;
  /** Tells the other tabs. */
  announce(message: TabMessage): void;
  /** Hears what other tabs announce. */
  listen(handler: (message: TabMessage) => void): void;
  close(): void;
}

/**
 * Web Locks for the refresh, localStorage for when one last succeeded, BroadcastChannel for
 * sign-in and sign-out. localStorage reaches other tabs a moment later (Chromium syncs it between
 * processes asynchronously), so a tab that had to wait for the lock takes the wait itself as the
 * sign that the tab before it refreshed. Whatever the browser lacks falls back to this tab alone.
 */
export function browserCoordination(scope: string, lockWaitMs = 30_000): TabCoordination {
  const lockName = `auth-service refresh ${scope}`;
  const storageKey = `auth-service:last-refresh:${scope}`;
  const locks = typeof navigator === 'undefined' ? undefined : navigator.locks;
  const storage = safeStorage();
  const channel =
    typeof BroadcastChannel === 'undefined'
      ? undefined
      : new BroadcastChannel(`auth-service ${scope}`);
  let localLast = 0;

  return {
    exclusive: <T>(task: (waited: boolean) => Promise<T>): Promise<T> => {
      if (!locks) return task(false);
      // A tab whose refresh hangs (its own timeout aside) must not hold every other tab forever.
      const wait = { signal: AbortSignal.timeout(lockWaitMs) };
      return locks.request(lockName, { ifAvailable: true }, (free) =>
        free ? task(false) : locks.request(lockName, wait, () => task(true)),
      ) as Promise<T>;
    },
    lastRefresh: () => Math.max(localLast, Number(storage?.getItem(storageKey)) || 0),
    noteRefresh: (at) => {
      localLast = at;
      storage?.setItem(storageKey, String(at));
    },
    announce: (message) => channel?.postMessage(message),
    listen: (handler) => {
      if (channel) channel.onmessage = (event: MessageEvent<TabMessage>) => handler(event.data);
    },
    close: () => channel?.close(),
  };
}

/** localStorage throws in some privacy modes and sandboxed frames. */
function safeStorage(): Storage | undefined {
  try {
    return typeof localStorage === 'undefined' ? undefined : localStorage;
  } catch {
    return undefined;
  }
}
