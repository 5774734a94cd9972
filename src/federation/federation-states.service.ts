import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { LessThan, MoreThan, Repository } from 'typeorm';
import { PurgeSchedule, purgeInBatches } from '../database/batch-purge';
import { Database } from '../database/database.service';
import { hashToken, randomToken } from '../tokens/token-hash';
import { FederationState, FlowPurpose } from './federation-state.entity';

/** How long a person has at the provider (its login and consent pages) before the flow lapses. */
export const FLOW_TTL_SECONDS = 600;
const PURGE_EVERY_MS = 10 * 60_000;

export interface NewFlow {
  provider: string;
  purpose: FlowPurpose;
  userId: string | null;
  /** The linking (or stepping-up) user's token version; null for a sign-in. */
  tokenVersion: number | null;
  /** The session a step-up renews; null otherwise. */
  sessionId: string | null;
  redirectTo: string;
  /** The browser's flow cookie: a random value, only its hash is stored. */
  browser: string;
}

export interface OpenFlow {
  state: string;
  nonce: string;
  codeVerifier: string;
}

/**
 * The round trips in progress, in the database: a provider's redirect may land on any instance.
 * A flow is taken once (deleted as it is read), only by the browser that began it, before it
 * expires.
 */
@Injectable()
export class FederationStates implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly schedule = new PurgeSchedule(new Logger(FederationStates.name));

  constructor(
    @InjectRepository(FederationState) private readonly states: Repository<FederationState>,
    private readonly database: Database,
  ) {}

  onApplicationBootstrap(): void {
    this.schedule.every(PURGE_EVERY_MS, () => this.purge());
  }

  onApplicationShutdown(): void {
    this.schedule.stop();
  }

  async open(flow: NewFlow): Promise<OpenFlow> {
    const opened = { state: randomToken(), nonce: randomToken(), codeVerifier: randomToken() };
    const now = new Date();
    await this.database.run((manager) =>
      manager.withRepository(this.states).insert({
        id: hashToken(opened.state),
        provider: flow.provider,
        purpose: flow.purpose,
        userId: flow.userId,
        tokenVersion: flow.tokenVersion,
        sessionId: flow.sessionId,
        browserHash: hashToken(flow.browser),
        codeVerifier: opened.codeVerifier,
        nonce: opened.nonce,
        redirectTo: flow.redirectTo,
        createdAt: now,
        expiresAt: new Date(now.getTime() + FLOW_TTL_SECONDS * 1000),
      }),
    );
    return opened;
  }

  /**
   * The open flow `state` names, if `browser` began it, deleted as it is taken: of two callbacks
   * with one state (a replay, a second tab) only one gets it. Null otherwise.
   */
  async take(state: string, browser: string | undefined): Promise<FederationState | null> {
    const id = hashToken(state);
    return this.database.transaction(async (manager) => {
      const rows = manager.withRepository(this.states);
      const row = await rows.findOne({
        where: { id, expiresAt: MoreThan(new Date()) },
        lock: this.database.rowLock,
      });
      if (!row || browser === undefined || row.browserHash !== hashToken(browser)) return null;
      const deleted = await rows.delete({ id });
      return deleted.affected === 1 ? row : null;
    });
  }

  /**
   * Where a refused callback may still send the person: the app the flow named, checked when it
   * began. Read, not taken: a stranger's replay of someone's callback must not end their flow.
   */
  async redirectOf(state: string): Promise<string | undefined> {
    const row = await this.database.run((manager) =>
      manager.withRepository(this.states).findOneBy({ id: hashToken(state) }),
    );
    return row?.redirectTo;
  }

  purge(now = new Date()): Promise<number> {
    return purgeInBatches(this.database, this.states, { expiresAt: LessThan(now) });
  }
}
