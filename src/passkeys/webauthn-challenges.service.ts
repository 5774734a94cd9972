import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, LessThan, MoreThan, Repository } from 'typeorm';
import { PurgeSchedule, purgeInBatches } from '../database/batch-purge';
import { Database } from '../database/database.service';
import { hashToken, randomToken } from '../tokens/token-hash';
import { Ceremony, WebAuthnChallenge } from './webauthn-challenge.entity';

/** A ceremony's life: the browser's prompt plus a person finding their key; WebAuthn's own timeout. */
export const CHALLENGE_TTL_MS = 5 * 60_000;
const PURGE_EVERY_MS = 10 * 60_000;

/**
 * The challenges of WebAuthn ceremonies: 256 random bits, base64url (what the browser signs),
 * stored as hashes in the database, so any instance finishes a ceremony another began. A challenge
 * is claimed (used up) before its answer is checked: a second answer to it, right or wrong, on
 * any instance, finds it used.
 */
@Injectable()
export class WebAuthnChallenges implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly schedule = new PurgeSchedule(new Logger(WebAuthnChallenges.name));

  constructor(
    @InjectRepository(WebAuthnChallenge) private readonly challenges: Repository<WebAuthnChallenge>,
    private readonly database: Database,
  ) {}

  onApplicationBootstrap(): void {
    this.schedule.every(PURGE_EVERY_MS, () => this.purge());
  }

  onApplicationShutdown(): void {
    this.schedule.stop();
  }

  /** A new challenge for `purpose` (and the user it is for, unless a passkey will name them). */
  async issue(purpose: Ceremony, userId: string | null): Promise<string> {
    const challenge = randomToken();
    const now = new Date();
    await this.database.run((manager) =>
      manager.withRepository(this.challenges).insert({
        id: hashToken(challenge),
        purpose,
        userId,
        createdAt: now,
        expiresAt: new Date(now.getTime() + CHALLENGE_TTL_MS),
        usedAt: null,
      }),
    );
    return challenge;
  }

  /**
   * Uses the challenge up, in one conditional statement: true only for the first claim of an
   * open challenge issued for this purpose and user. A challenge the browser did not get from
   * here (or got for another ceremony or account) is never open.
   */
  async claim(challenge: string, purpose: Ceremony, userId: string | null): Promise<boolean> {
    const now = new Date();
    const claimed = await this.database.run((manager) =>
      manager.withRepository(this.challenges).update(
        {
          id: hashToken(challenge),
          purpose,
          userId: userId === null ? IsNull() : userId,
          usedAt: IsNull(),
          expiresAt: MoreThan(now),
        },
        { usedAt: now },
      ),
    );
    return claimed.affected === 1;
  }

  /** Challenges past their time, used or not: nothing can accept them again. */
  purge(now = new Date()): Promise<number> {
    return purgeInBatches(this.database, this.challenges, { expiresAt: LessThan(now) });
  }
}
