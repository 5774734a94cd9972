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
   * Marks a live token of this purpose used and returns its user, or null when the token is
   * unknown, of another purpose, expired or already used. Two parallel uses: exactly one wins.
   */
  async consume(
    manager: EntityManager,
    token: string,
    purpose: TokenPurpose,
  ): Promise<string | null> {
    return (await this.consumeRow(manager, token, purpose))?.userId ?? null;
  }

  /** As `consume`, returning the whole row (an email change needs its `newEmail`). */
  async consumeRow(
    manager: EntityManager,
    token: string,
    purpose: TokenPurpose,
  ): Promise<VerificationToken | null> {
    const id = hashToken(token);
    const now = new Date();
    const row = await manager.withRepository(this.tokens).findOne({
      where: { id },
      lock: this.database.rowLock,
    });
    if (!row || row.purpose !== purpose || row.usedAt !== null || row.expiresAt <= now) return null;
    const claimed = await manager
      .withRepository(this.tokens)
      .update({ id, usedAt: IsNull() }, { usedAt: now });
    return claimed.affected === 1 ? row : null;
  }

  /**
   * Why `consume` refused a token of this purpose, for the link's owner: it expired unused, a
   * newer link of the same kind replaced it, or it was used (or withdrawn by a change to the
   * account). Null for a token the service never issued for this purpose, or has purged
   * (TokenJanitor keeps ended ones a week).
   */
  async refusalOf(
    manager: EntityManager,
    token: string,
    purpose: TokenPurpose,
  ): Promise<TokenRefusal | null> {
    const repository = manager.withRepository(this.tokens);
    const row = await repository.findOneBy({ id: hashToken(token) });
    if (!row || row.purpose !== purpose) return null;
    if (row.usedAt === null) return { userId: row.userId, reason: 'expired' };
    // Replaced: retired when a newer one went out (created by the time this one stopped), and
    // that one still works, so "use the latest email" is true. Otherwise it was used, or a
    // change to the account (the newer link's use among them) withdrew both.
    const newer = await repository.existsBy({
      userId: row.userId,
      purpose,
      createdAt: And(MoreThan(row.createdAt), LessThanOrEqual(row.usedAt)),
      usedAt: IsNull(),
      expiresAt: MoreThan(new Date()),
    });
    return { userId: row.userId, reason: newer ? 'replaced' : 'used' };
  }

  /** A token whose email could not be sent must not stay usable. */
  async discard(token: string): Promise<void> {
    await this.database.run((manager) =>
      manager.withRepository(this.tokens).delete({ id: hashToken(token) }),
    );
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
