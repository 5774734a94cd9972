import { INestApplication, LoggerService, NestApplicationOptions } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { PinoLogger } from 'nestjs-pino';
import { AppModule } from './app.module';
import { UnroutedLimit } from './common/throttling/unrouted-limit';
import { ConfigSource } from './config/config-source';
import { readHttpPlatform } from './config/config.loader';
import { AppConfig } from './config/config.sections';
import { requestLog } from './logging/request-log';
import { StartLog } from './logging/start-log';
import { Metrics } from './metrics/metrics.service';
import { requestTiming } from './metrics/request-timing';
import { WELL_KNOWN_ROUTES } from './jwks/well-known.paths';
import { serveApiDocs } from './openapi/api-docs';
import { API_PREFIX } from './platform/api-prefix';
import { httpPlatform } from './platform/http-platform';
import { HttpPlatformKit } from './platform/platform-setup';

const APP_OPTIONS: NestApplicationOptions = {
  // The platform files parse bodies themselves (JSON only, 413/415, malformed JSON marked).
  bodyParser: false,
  abortOnError: false,
  // Lines written while the app is built wait for the JSON logger, which is a provider; a boot
  // that fails (bad configuration) prints its one line, not the buffered start-up lines.
  bufferLogs: true,
  autoFlushLogs: false,
};

/**
 * Prometheus scrapes /metrics by convention, and verifiers find the key set and the server
 * metadata at the origin's root: those addresses are not the versioned API's to choose.
 */
export const UNPREFIXED_ROUTES: readonly string[] = ['metrics', ...WELL_KNOWN_ROUTES];

/** What a compiled testing module offers (`Test.createTestingModule(...).compile()`). */
export interface CompiledModule {
  get<T>(token: abstract new (...args: never[]) => T): T;
  createNestApplication<T extends INestApplication = INestApplication>(
    adapter: HttpPlatformKit['adapter'],
    options?: NestApplicationOptions,
  ): T;
}

/**
 * The service as `main.ts` runs it, on the platform HTTP_PLATFORM names (Express by default),
 * configured from `.env` and the environment. Call `listen` next.
 */
export async function createApp(): Promise<INestApplication> {
  const kit = httpPlatform(readHttpPlatform(new ConfigSource().read()));
  const app = await NestFactory.create(AppModule, kit.adapter, APP_OPTIONS);
  await setUpApp(app, kit);
  return app;
}

/**
 * The whole service from a compiled testing module, initialised, on the platform its
 * configuration names: `createTestingApp(await Test.createTestingModule({ imports: [AppModule] })
 * .overrideProvider(X).useValue(y).compile())`. Requests go to `getHttpServer()` (supertest), or
 * call `listen`.
 */
export async function createTestingApp(
  moduleRef: CompiledModule,
  options: { /** Takes Nest's own lines instead of the JSON log. */ logger?: LoggerService } = {},
): Promise<INestApplication> {
  const kit = httpPlatform(moduleRef.get(AppConfig).httpPlatform);
  const app = moduleRef.createNestApplication(kit.adapter, APP_OPTIONS);
  await setUpApp(app, kit, options.logger);
  await app.init();
  await kit.ready(app);
  return app;
}

/** Logging, the platform's middleware or hooks, the prefix and the docs: the same for both. */
async function setUpApp(
  app: INestApplication,
  kit: HttpPlatformKit,
  logger?: LoggerService,
): Promise<void> {
  app.useLogger(logger ?? app.get(StartLog).nestLogger);
  // Only listen() would flush them otherwise; an app used in memory never calls it.
  app.flushLogs();
  const config = app.get(AppConfig);
  const metrics = app.get(Metrics);
  await kit.configure(app, {
    trustProxy: config.trustProxy,
    corsOrigins: config.corsOrigins,
    apiDocs: config.apiDocs,
    unroutedLimit: app.get(UnroutedLimit),
    observers: [
      ...(metrics.enabled ? [requestTiming(metrics)] : []),
      requestLog(await app.resolve(PinoLogger)),
    ],
  });
  app.setGlobalPrefix(API_PREFIX, { exclude: [...UNPREFIXED_ROUTES] });
  if (config.apiDocs) serveApiDocs(app);
  // No signal handlers here: main.ts installs its own, and an embedding app keeps its own.
}
