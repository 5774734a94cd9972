import { Injectable } from '@nestjs/common';
import { JwtConfig } from '../config/config.sections';
import { RefreshSession } from './refresh-session.entity';

type Dated = Pick<RefreshSession, 'startedAt' | 'createdAt' | 'expiresAt'>;

/**
 * How long a session and its tokens stay good. The absolute lifetime (ASVS 7.3.2): a session
 * ends SESSION_MAX_AGE after its login, however often it was refreshed. Judged with the configuration of now, not the one the session
 * began under, so lowering SESSION_MAX_AGE ends older sessions at their next use.
 */
@Injectable()
export class SessionLifetime {
  constructor(private readonly jwt: JwtConfig) {}

  /**
   * When the row's session began: its login. A row without `started_at` was written by a version
   * that did not know the column, alongside this one; its own creation is the earliest moment
   * known of its session, so the session is counted from there (it may have begun earlier).
   */
  startOf(row: Pick<RefreshSession, 'startedAt' | 'createdAt'>): Date {
    return row.startedAt ?? row.createdAt;
  }

  /** When a session that began at `start` ends, in whole seconds as token expiries are. */
  endOf(start: Date): Date {
    return new Date(Math.floor(start.getTime() / 1000 + this.jwt.sessionMaxAge) * 1000);
  }

  /** Sessions that began at or before this moment have ended by `now`. */
  cutoff(now: Date): Date {
    return new Date(now.getTime() - this.jwt.sessionMaxAge * 1000);
  }

  /** When the row's token stops being good: its own expiry or its session's end, the earlier. */
  expiryOf(row: Dated): Date {
    const end = this.endOf(this.startOf(row));
    return row.expiresAt.getTime() < end.getTime() ? row.expiresAt : end;
  }

  /**
   * A token rotated at `rotatedAt` still gets its successor (parallel tabs): within
   * REFRESH_REUSE_GRACE seconds. Later, a copy of it is theft.
   */
  withinGrace(rotatedAt: Date, now: Date): boolean {
    return now.getTime() - rotatedAt.getTime() <= this.jwt.refreshReuseGrace * 1000;
  }
}
