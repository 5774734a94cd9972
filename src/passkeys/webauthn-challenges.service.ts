import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { LessThan, Repository } from 'typeorm';
import { JwtConfig } from '../config/config.sections';
import { PurgeSchedule, purgeInBatches } from '../database/batch-purge';
import { isForeignKeyViolation, isUniqueViolation } from '../database/database-errors';
import { Database } from '../database/database.service';
import { ceremonyKey } from '../tokens/ceremony-key';
import { hashToken } from '../tokens/token-hash';
import { Ceremony, WebAuthnChallenge } from './webauthn-challenge.entity';

/** A ceremony's life: the browser's prompt plus a person finding their key; WebAuthn's own timeout. */
export const CHALLENGE_TTL_MS = 5 * 60_000;
const PURGE_EVERY_MS = 10 * 60_000;

/** 96 random bits, the expiry (unix seconds), a 128-bit MAC: 32 bytes, as WebAuthn signs them. */
const RANDOM_BYTES = 12;
const BODY_BYTES = RANDOM_BYTES + 4;
const CHALLENGE_BYTES = BODY_BYTES + 16;

/**
 * The challenges of WebAuthn ceremonies, carried rather than stored: random bytes, their expiry
 * and a MAC (under a key every instance derives, see ceremonyKey) over both and the ceremony and
 * user they are for. Handing one out writes nothing, so `POST /auth/passkey/options`, open to
 * anyone, cannot fill a table however many addresses ask. A challenge is claimed (used up) before
 * its answer is checked, by writing its hash: a second answer to it, right or wrong, on any
 * instance, finds it used. Those rows are as many as answers, which take the strict rate limit
 * (or a signed-in account), and go once the challenge has expired.
 */
@Injectable()
export class WebAuthnChallenges implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly schedule = new PurgeSchedule(new Logger(WebAuthnChallenges.name));
  private readonly key: Buffer;

  constructor(
    @InjectRepository(WebAuthnChallenge) private readonly challenges: Repository<WebAuthnChallenge>,
    private readonly database: Database,
    jwt: JwtConfig,
  ) {
    this.key = ceremonyKey(jwt.refreshSecret, 'webauthn-challenge');
  }

  onApplicationBootstrap(): void {
    this.schedule.every(PURGE_EVERY_MS, () => this.purge());
  }

  onApplicationShutdown(): void {
    this.schedule.stop();
  }

  /**
   * A new challenge for `purpose` (and the user it is for, unless a passkey will name them), good
   * for CHALLENGE_TTL_MS from `now`. Base64url, as the options carry it.
   */
  issue(purpose: Ceremony, userId: string | null, now = new Date()): string {
    const body = Buffer.alloc(BODY_BYTES);
    randomBytes(RANDOM_BYTES).copy(body);
    body.writeUInt32BE(Math.floor((now.getTime() + CHALLENGE_TTL_MS) / 1000), RANDOM_BYTES);
    return Buffer.concat([body, this.mac(body, purpose, userId)]).toString('base64url');
  }

  /**
   * Uses the challenge up: true only for the first claim of a challenge issued here for this
   * purpose and user, before it expires. A challenge the browser did not get from here (or got
   * for another ceremony or account) is never open; of two claims, on any instances, the
   * database's primary key lets one through.
   */
  async claim(challenge: string, purpose: Ceremony, userId: string | null): Promise<boolean> {
    const expiresAt = this.expiryOf(challenge, purpose, userId);
    const now = new Date();
    if (expiresAt === null || expiresAt <= now) return false;
    try {
      await this.challenges.insert({
        id: hashToken(challenge),
        purpose,
        userId,
        createdAt: now,
        expiresAt,
        usedAt: now,
      });
      return true;
    } catch (error) {
      // Used already; or its account was deleted since it was handed out.
      if (isUniqueViolation(error) || isForeignKeyViolation(error)) return false;
      throw error;
    }
  }

  /** Used challenges past their time: they fail on their expiry alone from then on. */
  purge(now = new Date()): Promise<number> {
    return purgeInBatches(this.database, this.challenges, { expiresAt: LessThan(now) });
  }

  /**
   * When a challenge this service issued for `purpose` and `userId` expires; null for any other
   * string, another spelling of the same bytes included (it would have another hash).
   */
  private expiryOf(challenge: string, purpose: Ceremony, userId: string | null): Date | null {
    const bytes = Buffer.from(challenge, 'base64url');
    if (bytes.length !== CHALLENGE_BYTES || bytes.toString('base64url') !== challenge) return null;
    const body = bytes.subarray(0, BODY_BYTES);
    if (!timingSafeEqual(bytes.subarray(BODY_BYTES), this.mac(body, purpose, userId))) return null;
    return new Date(body.readUInt32BE(RANDOM_BYTES) * 1000);
  }

  private mac(body: Buffer, purpose: Ceremony, userId: string | null): Buffer {
    return createHmac('sha256', this.key)
      .update(body)
      .update(`\0${purpose}\0${userId ?? ''}`)
      .digest()
      .subarray(0, CHALLENGE_BYTES - BODY_BYTES);
  }
}
