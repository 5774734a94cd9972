import { INestApplication } from '@nestjs/common';
import { AbstractHttpAdapter } from '@nestjs/core';
import { Server } from 'node:http';
import { AnswerObserver } from '../common/http/answer';
import { UnroutedLimit } from '../common/throttling/unrouted-limit';
import { TrustProxySetting } from '../config/config.sections';

/** What the service asks of the HTTP platform, whichever one serves it. */
export interface PlatformSetup {
  trustProxy: TrustProxySetting;
  corsOrigins: readonly string[];
  /** Called once per answer: the request log, the latency histogram. */
  observers: AnswerObserver[];
  /** The API reference and its document are served (a page's content policy, visits counted). */
  apiDocs: boolean;
  /**
   * The general rate limit for what reaches no route, and so no guard: unknown paths (the
   * not-found handler) and every OPTIONS request (counted before CORS answers a preflight).
   */
  unroutedLimit: Pick<UnroutedLimit, 'spend'>;
}

/**
 * One HTTP platform: the Nest adapter, and what has to be added to it before the routes (body
 * parsing with 413/415, proxy trust, security headers, request id, request log, cookies, CORS,
 * the HTTP parser's refusals, keep-alive while stopping, the rate limit of unrouted requests, a
 * refused body read to its end, up to a bound, before the answer).
 */
export interface HttpPlatformKit {
  readonly adapter: AbstractHttpAdapter;
  configure(app: INestApplication, setup: PlatformSetup): Promise<void>;
  /** After `init`: ready to answer in memory (supertest on `getHttpServer()`) without `listen`. */
  ready(app: INestApplication): Promise<void>;
}

/** An adapter the kit has configured; PlatformCheck refuses to start an app whose adapter is not. */
export interface ConfiguredAdapter {
  configured: boolean;
}

/** Fastify's default, kept on Express: longer than a load balancer's usual idle timeout. */
export const KEEP_ALIVE_MS = 72_000;
/** Node's own default, which Fastify turns off: a client trickling a request is cut off. */
export const REQUEST_TIMEOUT_MS = 60_000;

/**
 * While stopping, a keep-alive connection is closed as soon as its last request is answered: one
 * whose request was still running would otherwise hold the stop open for the whole keep-alive
 * timeout. Returns what ends the sweeping once the server has closed.
 */
export function sweepIdleConnections(server: Server | undefined): () => void {
  const sweeper = setInterval(() => server?.closeIdleConnections(), 50).unref();
  return () => clearInterval(sweeper);
}
