import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { And, EntityManager, In, IsNull, LessThanOrEqual, MoreThan, Repository } from 'typeorm';
import { Database } from '../database/database.service';
import { hashToken, randomToken } from './token-hash';
import { TokenPurpose, VerificationToken } from './verification-token.entity';

/** Why an emailed link no longer works, and whose it was. */
export interface TokenRefusal {
  userId: string;
  reason: 'expired' | 'replaced' | 'used';
}

/** What `consume` did with a token: used it (its row), or not, and why if the token is known. */
export type Claim =
  | { row: VerificationToken; refusal?: undefined }
  | { row?: undefined; refusal: TokenRefusal | null };

/**
 * Emailed single-use tokens (email verification, password reset, email change): 256 random bits,
 * stored only as their SHA-256, tagged with a purpose, expiring. A token is looked up by the hash
 * of a string the caller has validated, never by an absent value.
 */
@Injectable()
export class VerificationTokensService {
  constructor(
    @InjectRepository(VerificationToken) private readonly tokens: Repository<VerificationToken>,
    private readonly database: Database,
  ) {}

  /**
   * Creates a token and returns it in plain form, once. `newEmail` is the address an
   * `email_change` token moves the account to.
   */
  async issue(
    manager: EntityManager,
    userId: string,
    purpose: TokenPurpose,
    ttlSeconds: number,
    newEmail: string | null = null,
  ): Promise<string> {
    const token = randomToken();
    const now = new Date();
    await manager.withRepository(this.tokens).insert({
      id: hashToken(token),
      userId,
      purpose,
      createdAt: now,
      expiresAt: new Date(now.getTime() + ttlSeconds * 1000),
      usedAt: null,
      newEmail,
    });
    return token;
  }

  /**
   * Marks a live token of this purpose used and returns its row, or says why it cannot be used
   * (`refusal`, null for a token never issued for this purpose, or purged: TokenJanitor keeps
   * ended ones a week). Two parallel uses: exactly one wins, the other is told it was used.
   */
  async consume(manager: EntityManager, token: string, purpose: TokenPurpose): Promise<Claim> {
    const repository = manager.withRepository(this.tokens);
    const id = hashToken(token);
    const now = new Date();
    const row = await repository.findOne({ where: { id }, lock: this.database.rowLock });
    if (!row || row.purpose !== purpose) return { refusal: null };
    if (row.usedAt !== null || row.expiresAt <= now) {
      return { refusal: await this.refusalOf(manager, row, now) };
    }
    const claimed = await repository.update({ id, usedAt: IsNull() }, { usedAt: now });
    if (claimed.affected === 1) return { row };
    return { refusal: { userId: row.userId, reason: 'used' } };
  }

  /**
   * Why an ended token no longer works, for the link's owner: it expired unused, a newer link of
   * the same kind replaced it, or it was used (or withdrawn by a change to the account).
   */
  private async refusalOf(
    manager: EntityManager,
    row: VerificationToken,
    now: Date,
  ): Promise<TokenRefusal> {
    if (row.usedAt === null) return { userId: row.userId, reason: 'expired' };
    // Replaced: retired when a newer one went out (created by the time this one stopped), and
    // that one still works, so "use the latest email" is true. Otherwise it was used, or a
    // change to the account (the newer link's use among them) withdrew both.
    const newer = await manager.withRepository(this.tokens).existsBy({
      userId: row.userId,
      purpose: row.purpose,
      createdAt: And(MoreThan(row.createdAt), LessThanOrEqual(row.usedAt)),
      usedAt: IsNull(),
      expiresAt: MoreThan(now),
    });
    return { userId: row.userId, reason: newer ? 'replaced' : 'used' };
  }

  /** A token whose email could not be sent must not stay usable. */
  async discard(token: string): Promise<void> {
    await this.tokens.delete({ id: hashToken(token) });
  }

  /**
   * Retires the user's other live tokens of this purpose issued no later than `token`, so only
   * the newest link works; with no `token`, all of them. If `token` itself has been retired by a
   * newer request meanwhile, nothing is retired: that request keeps its link.
   */
  async retireOlder(
    manager: EntityManager,
    userId: string,
    purpose: TokenPurpose,
    token?: string,
  ): Promise<void> {
    const live = await manager.withRepository(this.tokens).find({
      where: { userId, purpose, usedAt: IsNull() },
      lock: this.database.rowLock,
    });
    const keepId = token === undefined ? undefined : hashToken(token);
    const keep = live.find((row) => row.id === keepId);
    if (keepId !== undefined && keep === undefined) return;
    const older = live.filter(
      (row) => keep === undefined || (row.id !== keep.id && row.createdAt <= keep.createdAt),
    );
    if (older.length === 0) return;
    await manager
      .withRepository(this.tokens)
      .update({ id: In(older.map((row) => row.id)), usedAt: IsNull() }, { usedAt: new Date() });
  }

  /** An account's removal: every emailed token of the user goes. */
  async deleteAllOf(manager: EntityManager, userId: string): Promise<void> {
    await manager.withRepository(this.tokens).delete({ userId });
  }
}
