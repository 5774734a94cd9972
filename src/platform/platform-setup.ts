import { AbstractHttpAdapter } from '@nestjs/core';
import { INestApplication } from '@nestjs/common';
import { AnswerObserver } from '../common/http/answer';
import { TrustProxySetting } from '../config/config.sections';

/** What the service asks of the HTTP platform, whichever one serves it. */
export interface PlatformSetup {
  trustProxy: TrustProxySetting;
  corsOrigins: readonly string[];
  /** Called once per answer: the request log, the latency histogram. */
  observers: AnswerObserver[];
  /** Swagger UI and its document are served (they get their own content policy). */
  apiDocs: boolean;
}

/**
 * One HTTP platform: the Nest adapter, and what has to be added to it before the routes (body
 * parsing with 413/415, proxy trust, security headers, request id, request log, cookies, CORS,
 * the HTTP parser's refusals, keep-alive while stopping).
 */
export interface HttpPlatformKit {
  readonly adapter: AbstractHttpAdapter;
  configure(app: INestApplication, setup: PlatformSetup): Promise<void>;
  /** After `init`: ready to answer in memory (supertest on `getHttpServer()`) without `listen`. */
  ready(app: INestApplication): Promise<void>;
}
