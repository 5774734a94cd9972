import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, LessThan, MoreThan, Repository } from 'typeorm';
import { PurgeSchedule, purgeInBatches } from '../database/batch-purge';
import { Database } from '../database/database.service';
import { hashToken, randomToken } from '../tokens/token-hash';
import { User } from '../users/user.entity';
import { SecondFactorChallenge } from './second-factor-challenge.entity';

/** How long a login's second step stays open. */
const CHALLENGE_TTL_MS = 5 * 60_000;
const PURGE_EVERY_MS = 10 * 60_000;

/** What a challenge stood for, once it is used. */
export interface OpenedChallenge {
  userId: string;
  /** The user's token version when the password was checked: a logout or reset since voids it. */
  tokenVersion: number;
  /** The first step's `amr`. */
  firstAmr: readonly string[];
  /** The identity provider the first step went through, if one. */
  provider: string | undefined;
}

/**
 * The challenges a login (by password, or by a code by email) hands out when the user has a
 * second factor: random, stored as hashes, shared by every instance (in the database), good for
 * five minutes and for one successful second step.
 */
@Injectable()
export class SecondFactorChallenges implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly schedule = new PurgeSchedule(new Logger(SecondFactorChallenges.name));

  constructor(
    @InjectRepository(SecondFactorChallenge)
    private readonly challenges: Repository<SecondFactorChallenge>,
    private readonly database: Database,
  ) {}

  onApplicationBootstrap(): void {
    this.schedule.every(PURGE_EVERY_MS, () => this.purge());
  }

  onApplicationShutdown(): void {
    this.schedule.stop();
  }

  async issue(user: User, firstAmr: readonly string[], provider?: string): Promise<string> {
    const challenge = randomToken();
    const now = new Date();
    await this.challenges.insert({
      id: hashToken(challenge),
      userId: user.id,
      firstFactor: firstAmr.join(','),
      provider: provider ?? null,
      tokenVersion: user.tokenVersion,
      createdAt: now,
      expiresAt: new Date(now.getTime() + CHALLENGE_TTL_MS),
      usedAt: null,
    });
    return challenge;
  }

  /** The open challenge's user, or null for an unknown, used or expired one. Does not use it. */
  async peek(challenge: string): Promise<OpenedChallenge | null> {
    const row = await this.challenges.findOneBy({
      id: hashToken(challenge),
      usedAt: IsNull(),
      expiresAt: MoreThan(new Date()),
    });
    return (
      row && {
        userId: row.userId,
        tokenVersion: row.tokenVersion,
        firstAmr: row.firstFactor.split(','),
        provider: row.provider ?? undefined,
      }
    );
  }

  /** Uses the challenge up; false when it was used (or expired) meanwhile. */
  async use(challenge: string): Promise<boolean> {
    const now = new Date();
    const claimed = await this.challenges.update(
      { id: hashToken(challenge), usedAt: IsNull(), expiresAt: MoreThan(now) },
      { usedAt: now },
    );
    return claimed.affected === 1;
  }

  /** Challenges past their time, used or not: nothing can accept them again. */
  purge(now = new Date()): Promise<number> {
    return purgeInBatches(this.database, this.challenges, { expiresAt: LessThan(now) });
  }
}
