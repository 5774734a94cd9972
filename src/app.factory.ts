import { INestApplication, LoggerService } from '@nestjs/common';
import { IncomingMessage } from 'node:http';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import fastifyCookie from '@fastify/cookie';
import { FastifyInstance } from 'fastify';
import { Logger, PinoLogger } from 'nestjs-pino';
import { DestinationStream } from 'pino';
import { AppModule } from './app.module';
import { answerClientError, answerFrameworkError } from './common/errors/framework-errors';
import { requestIdOf } from './logging/request-id';
import { requestLog } from './logging/request-log';
import { MAX_BODY_BYTES, registerJsonBody } from './common/http/json-body.parser';
import { observeAnswers } from './common/http/answered.hook';
import { corsOptions, registerAnswerHeaders } from './common/http/security-headers';
import { TrustFunction, trustFunction } from './common/http/trust-proxy';
import { ConfigOptions } from './config/config.module';
import { AppConfig } from './config/config.sections';
import { Metrics } from './metrics/metrics.service';
import { requestTiming } from './metrics/request-timing';
import { serveApiDocs } from './openapi/openapi.document';

export const API_PREFIX = 'api/v1';

export interface CreateAppOptions extends ConfigOptions {
  /**
   * JSON lines (pino) by default, one per request and Nest's own. `false` logs nothing; a
   * LoggerService receives Nest's lines instead, and requests are not logged.
   */
  logger?: false | LoggerService;
  /** Where the JSON lines go instead of stdout. */
  logDestination?: DestinationStream;
}

/**
 * Builds the service exactly as `main.ts` runs it: the same module, hooks, CORS, cookies and
 * prefix. Tests and embedding apps call this and then `listen`, or `init` and `getHttpServer`.
 * Fastify rather than Express: on the token path it is several times faster (docs/performance.md).
 */
export async function createApp(options: CreateAppOptions = {}): Promise<INestApplication> {
  const json = options.logger === undefined;
  const module = await AppModule.forRoot({
    ...options,
    logs: json ? { destination: options.logDestination } : false,
  });
  // Fastify takes its proxy trust when it is built, before the validated config exists.
  let trust: TrustFunction = () => false;
  const adapter = new FastifyAdapter({
    trustProxy: (address: string, hop: number) => trust(address, hop),
    bodyLimit: MAX_BODY_BYTES,
    // As Express did: /API/V1/AUTH/LOGIN and /auth/login/ are the same route.
    routerOptions: { caseSensitive: false, ignoreTrailingSlash: true },
    frameworkErrors: answerFrameworkError,
    clientErrorHandler: answerClientError,
    // Node's default, which Fastify turns off: a client trickling a body is cut off.
    requestTimeout: 60_000,
    // While stopping, requests on open connections are still served (the database closes after
    // the server); Fastify's own 503 would not be the envelope.
    return503OnClosing: false,
    genReqId: (req: IncomingMessage) => requestIdOf(req, (address) => trust(address, 0)),
    // requestIdOf reads the header itself: well-formed ids from trusted proxies only.
    requestIdHeader: false,
  });
  const app = await NestFactory.create<NestFastifyApplication>(module, adapter, {
    bodyParser: false,
    abortOnError: false,
    // Lines written while the app is built wait for the JSON logger, which is a provider.
    ...(json ? { bufferLogs: true } : { logger: options.logger }),
  });
  if (json) {
    app.useLogger(app.get(Logger));
    // Only listen() would flush them otherwise; an app used in memory never calls it.
    app.flushLogs();
  }
  const config = app.get(AppConfig);
  trust = trustFunction(config.trustProxy);

  const fastify = app.getHttpAdapter().getInstance();
  closeIdleWhileStopping(fastify);
  const metrics = app.get(Metrics);
  observeAnswers(fastify, [
    ...(metrics.enabled ? [requestTiming(metrics)] : []),
    ...(json ? [requestLog(await app.resolve(PinoLogger))] : []),
  ]);
  registerAnswerHeaders(fastify);
  registerJsonBody(fastify);
  await app.register(fastifyCookie);
  app.enableCors(corsOptions(config.corsOrigins));
  // Prometheus scrapes /metrics by convention, outside the versioned API.
  app.setGlobalPrefix(API_PREFIX, { exclude: ['metrics'] });
  if (config.apiDocs) serveApiDocs(app, fastify);
  // No signal handlers here: main.ts installs its own, and an embedding app keeps its own.
  return app;
}

/**
 * The app initialised and Fastify ready, for in-memory use without a port: supertest (or
 * `inject`) on `getHttpServer()`. `listen` needs neither step; it does both.
 */
export async function createReadyApp(
  options: CreateAppOptions = {},
  /** Runs before the routes are registered: an embedding app's own Fastify hooks (onRoute). */
  beforeInit?: (app: NestFastifyApplication) => void,
): Promise<INestApplication> {
  const app = (await createApp(options)) as NestFastifyApplication;
  beforeInit?.(app);
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
  return app;
}

/**
 * While stopping, a keep-alive connection is closed as soon as its last request is answered.
 * Fastify closes the connections that are idle when the stop begins; one whose request was still
 * running would otherwise hold the stop open for the whole keep-alive timeout.
 */
function closeIdleWhileStopping(fastify: FastifyInstance): void {
  let sweeper: NodeJS.Timeout | undefined;
  fastify.addHook('preClose', (done) => {
    sweeper = setInterval(() => fastify.server.closeIdleConnections(), 50);
    sweeper.unref();
    done();
  });
  fastify.addHook('onClose', (_instance, done) => {
    clearInterval(sweeper);
    done();
  });
}
