import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { createHmac, randomInt, timingSafeEqual } from 'node:crypto';
import { Equal, IsNull, LessThan, MoreThan, Repository } from 'typeorm';
import { EmailCodeConfig, MfaConfig } from '../config/config.sections';
import { PurgeSchedule, purgeInBatches } from '../database/batch-purge';
import { Database } from '../database/database.service';
import { hashToken, randomToken } from '../tokens/token-hash';
import { EmailCode, EmailCodePurpose } from './email-code.entity';

const PURGE_EVERY_MS = 10 * 60_000;

/** What a mail carries: the link's token and the six digits; neither is stored as it is. */
export interface IssuedEmailCode {
  token: string;
  code: string;
}

/** `used`: right, and now spent; `wrong`: counted against it; `none`: no live code to try. */
export type CodeOutcome = 'used' | 'wrong' | 'none';

/**
 * The mailed codes: the one service that touches email_codes. A row is a code and its link, good
 * for EMAIL_CODE_TTL seconds and one use of either. A code is for one purpose (a sign-in, or a
 * step-up, whose mail carries no link) and only ever accepted for it. Only the newest of a
 * user's codes of a purpose is live (a new mail retires the ones issued before it), so a guesser
 * faces one code at a time, and each takes EMAIL_CODE_ATTEMPTS wrong guesses at most before it
 * is dead, its link with it.
 *
 * Six digits are few: an unkeyed hash of one would be undone by trying them all. The code is
 * hashed with a key derived from MFA_ENCRYPTION_KEY (which a copy of the database does not hold)
 * and salted with its row, so the database alone gives no one a live code.
 */
@Injectable()
export class EmailCodes implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly schedule = new PurgeSchedule(new Logger(EmailCodes.name));
  private readonly key: Buffer;

  constructor(
    @InjectRepository(EmailCode) private readonly codes: Repository<EmailCode>,
    private readonly database: Database,
    private readonly config: EmailCodeConfig,
    mfa: MfaConfig,
  ) {
    this.key = createHmac('sha256', mfa.encryptionKey).update('email-code').digest();
  }

  onApplicationBootstrap(): void {
    this.schedule.every(PURGE_EVERY_MS, () => this.purge());
  }

  onApplicationShutdown(): void {
    this.schedule.stop();
  }

  /** A new code and link for the user; the older ones stay live until `retireOthers`. */
  async issue(userId: string, purpose: EmailCodePurpose = 'sign_in'): Promise<IssuedEmailCode> {
    const token = randomToken();
    const code = String(randomInt(1_000_000)).padStart(6, '0');
    const id = hashToken(token);
    const now = new Date();
    await this.codes.insert({
      id,
      userId,
      purpose,
      codeHash: this.codeHash(id, code),
      attempts: 0,
      createdAt: now,
      expiresAt: new Date(now.getTime() + this.config.ttl * 1000),
      usedAt: null,
    });
    return { token, code };
  }

  /**
   * Once its mail went out, the codes of its purpose issued before `token`'s are retired. Only
   * those: two requests at once (a double click) each finish here, and retiring every other code
   * would have each retire the other's, leaving the person two dead mails. Issued order is
   * creation time, then id for codes of the same millisecond, the order `useCode` takes the
   * newest by.
   */
  async retireOthers(userId: string, token: string): Promise<void> {
    const id = hashToken(token);
    await this.database.transaction(async (manager) => {
      const rows = manager.withRepository(this.codes);
      const mine = await rows.findOneBy({ id });
      if (!mine) return;
      const live = { userId, purpose: mine.purpose, usedAt: IsNull() };
      const usedAt = new Date();
      await rows.update({ ...live, createdAt: LessThan(mine.createdAt) }, { usedAt });
      await rows.update(
        { ...live, createdAt: Equal(mine.createdAt), id: LessThan(id) },
        { usedAt },
      );
    });
  }

  /** A code whose mail could not be sent must not stay usable. */
  async discard(token: string): Promise<void> {
    await this.codes.delete({ id: hashToken(token) });
  }

  /**
   * Uses up the live sign-in code `token` is the link of, in one conditional statement (two uses
   * at once: one wins). Its user, or null for an unknown, used, expired or dead one.
   */
  async useLink(token: string): Promise<string | null> {
    const id = hashToken(token);
    const now = new Date();
    return this.database.transaction(async (manager) => {
      const rows = manager.withRepository(this.codes);
      const claimed = await rows.update(
        {
          id,
          purpose: 'sign_in',
          usedAt: IsNull(),
          expiresAt: MoreThan(now),
          attempts: LessThan(this.config.maxAttempts),
        },
        { usedAt: now },
      );
      if (claimed.affected !== 1) return null;
      return (await rows.findOneBy({ id }))?.userId ?? null;
    });
  }

  /**
   * Checks `code` against the user's live code of `purpose`: a right one is used up (its link
   * with it), a wrong one counted against it. Read under lock, so parallel guesses are each
   * counted.
   */
  async useCode(
    userId: string,
    code: string,
    purpose: EmailCodePurpose = 'sign_in',
  ): Promise<CodeOutcome> {
    const now = new Date();
    return this.database.transaction(async (manager) => {
      const rows = manager.withRepository(this.codes);
      const live = await rows.findOne({
        where: { userId, purpose, usedAt: IsNull(), expiresAt: MoreThan(now) },
        order: { createdAt: 'DESC', id: 'DESC' },
        lock: this.database.rowLock,
      });
      if (!live || live.attempts >= this.config.maxAttempts) return 'none';
      if (!sameHash(this.codeHash(live.id, code), live.codeHash)) {
        await rows.increment({ id: live.id }, 'attempts', 1);
        return 'wrong';
      }
      const claimed = await rows.update({ id: live.id, usedAt: IsNull() }, { usedAt: now });
      return claimed.affected === 1 ? 'used' : 'none';
    });
  }

  /** Codes past their time, used or not: nothing can accept them again. */
  purge(now = new Date()): Promise<number> {
    return purgeInBatches(this.database, this.codes, { expiresAt: LessThan(now) });
  }

  private codeHash(id: string, code: string): string {
    return createHmac('sha256', this.key).update(`${id}:${code}`).digest('hex');
  }
}

function sameHash(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
}
