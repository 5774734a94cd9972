import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { LessThan, Repository } from 'typeorm';
import { JwtConfig } from '../config/config.sections';
import { PurgeSchedule, purgeInBatches } from '../database/batch-purge';
import { isUniqueViolation } from '../database/database-errors';
import { Database } from '../database/database.service';
import { ceremonyKey } from '../tokens/ceremony-key';
import { hashToken, randomToken } from '../tokens/token-hash';
import { FinishedFlow } from './finished-flow.entity';

/** How long a person has at the provider (its login and consent pages) before the flow lapses. */
export const FLOW_TTL_SECONDS = 600;
/** The longest `redirect_to` a flow takes: its `state` carries it through the provider. */
export const MAX_REDIRECT_LENGTH = 2048;
const PURGE_EVERY_MS = 10 * 60_000;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** `reauth`: a step-up of a signed-in session, through a provider linked to its account. */
export type FlowPurpose = 'sign_in' | 'link' | 'reauth';

export interface NewFlow {
  provider: string;
  purpose: FlowPurpose;
  userId: string | null;
  /** The linking (or stepping-up) user's token version; null for a sign-in. */
  tokenVersion: number | null;
  /** The session a step-up renews; null otherwise. */
  sessionId: string | null;
  /** Checked against APP_ORIGINS by the caller. */
  redirectTo: string;
  /** The browser's flow cookie: a random value, only its hash goes into the state. */
  browser: string;
}

/** A round trip in progress, as its `state` carries it. */
export interface Flow {
  provider: string;
  purpose: FlowPurpose;
  /** The signed-in user linking an identity; null for a sign-in. */
  userId: string | null;
  /**
   * The linking user's token version when the link began; null for a sign-in. Ending every
   * session (a reset, "sign out everywhere", an administrator) moves it, and a link still in
   * flight from one of those sessions is refused at the callback.
   */
  tokenVersion: number | null;
  /** The session a step-up renews; null otherwise. */
  sessionId: string | null;
  /** The SHA-256 of the flow cookie of the browser that began it. */
  browserHash: string;
  codeVerifier: string;
  nonce: string;
  redirectTo: string;
  /** When it began: a step-up's fresh sign-in at the provider must not be older. */
  createdAt: Date;
  expiresAt: Date;
}

export interface OpenFlow {
  state: string;
  nonce: string;
  codeVerifier: string;
}

/** A Flow in the state: short keys, since the provider's URL carries it, and the callback's. */
interface Sealed {
  p: string;
  k: FlowPurpose;
  u: string | null;
  v: number | null;
  s: string | null;
  b: string;
  c: string;
  n: string;
  r: string;
  e: number;
}

/**
 * The round trips in progress, carried by their `state`: the flow sealed (AES-256-GCM, under a
 * key every instance derives, see ceremonyKey), so a provider's redirect may land on any instance
 * and starting a flow, open to anyone, writes nothing: no table fills up however many addresses
 * start one. The PKCE verifier inside is encrypted, not only signed: the state travels through
 * the provider and the browser. A flow is taken only by the browser that began it (its flow
 * cookie's hash is inside), before it expires, and once: the callback that got the provider's
 * word records the state finished (its hash, until the flow would have expired); whatever comes
 * with that state afterwards, on any instance, finds it so.
 */
@Injectable()
export class ProviderFlowStates implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly schedule = new PurgeSchedule(new Logger(ProviderFlowStates.name));
  private readonly key: Buffer;

  constructor(
    @InjectRepository(FinishedFlow) private readonly finished: Repository<FinishedFlow>,
    private readonly database: Database,
    jwt: JwtConfig,
  ) {
    this.key = ceremonyKey(jwt.refreshSecret, 'federation-state');
  }

  onApplicationBootstrap(): void {
    this.schedule.every(PURGE_EVERY_MS, () => this.purge());
  }

  onApplicationShutdown(): void {
    this.schedule.stop();
  }

  open(flow: NewFlow, now = new Date()): OpenFlow {
    const opened = { nonce: randomToken(), codeVerifier: randomToken() };
    const sealed: Sealed = {
      p: flow.provider,
      k: flow.purpose,
      u: flow.userId,
      v: flow.tokenVersion,
      s: flow.sessionId,
      b: hashToken(flow.browser),
      c: opened.codeVerifier,
      n: opened.nonce,
      r: flow.redirectTo,
      e: now.getTime() + FLOW_TTL_SECONDS * 1000,
    };
    return { ...opened, state: this.seal(sealed) };
  }

  /**
   * The flow `state` carries, if this service sealed it, `browser` began it, it has not expired
   * and no callback has finished it. Null otherwise.
   */
  async take(state: string, browser: string | undefined): Promise<Flow | null> {
    const flow = this.unseal(state);
    if (!flow || flow.expiresAt <= new Date()) return null;
    if (browser === undefined || flow.browserHash !== hashToken(browser)) return null;
    return (await this.isFinished(state)) ? null : flow;
  }

  /**
   * Records the flow finished: true the first time, false when another callback with this
   * state (a replay, a second tab, on any instance) got there first: the primary key decides.
   */
  async finish(state: string, flow: Flow): Promise<boolean> {
    try {
      await this.database.run((manager) =>
        manager
          .withRepository(this.finished)
          .insert({ id: hashToken(state), expiresAt: flow.expiresAt }),
      );
      return true;
    } catch (error) {
      if (isUniqueViolation(error)) return false;
      throw error;
    }
  }

  /**
   * Where a refused callback may still send the person: the app the flow named, checked when it
   * began, whichever browser comes with it and however late. None once the flow was finished.
   */
  async redirectOf(state: string): Promise<string | undefined> {
    const flow = this.unseal(state);
    if (!flow || (await this.isFinished(state))) return undefined;
    return flow.redirectTo;
  }

  purge(now = new Date()): Promise<number> {
    return purgeInBatches(this.database, this.finished, { expiresAt: LessThan(now) });
  }

  private isFinished(state: string): Promise<boolean> {
    return this.database.run((manager) =>
      manager.withRepository(this.finished).existsBy({ id: hashToken(state) }),
    );
  }

  private seal(flow: Sealed): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(JSON.stringify(flow), 'utf8'), cipher.final()]);
    return Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url');
  }

  /**
   * The flow, when this service sealed `state` as it is spelled (another spelling of the same
   * bytes would have another hash, and be finished twice); null for anything else.
   */
  private unseal(state: string): Flow | null {
    const bytes = Buffer.from(state, 'base64url');
    if (bytes.length <= IV_BYTES + TAG_BYTES || bytes.toString('base64url') !== state) return null;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, bytes.subarray(0, IV_BYTES));
      decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
      const plain = Buffer.concat([
        decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)),
        decipher.final(),
      ]);
      const sealed = JSON.parse(plain.toString('utf8')) as Sealed;
      return {
        provider: sealed.p,
        purpose: sealed.k,
        userId: sealed.u,
        tokenVersion: sealed.v,
        sessionId: sealed.s ?? null,
        browserHash: sealed.b,
        codeVerifier: sealed.c,
        nonce: sealed.n,
        redirectTo: sealed.r,
        createdAt: new Date(sealed.e - FLOW_TTL_SECONDS * 1000),
        expiresAt: new Date(sealed.e),
      };
    } catch {
      return null;
    }
  }
}
