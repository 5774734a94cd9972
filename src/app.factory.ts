import { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import cookieParser from 'cookie-parser';
import { AppModule } from './app.module';
import { apiSecurityHeaders, corsForBrowsers } from './common/http/security-headers';
import { jsonBody } from './common/http/json-body.middleware';
import { ConfigOptions } from './config/config.module';
import { AppConfig } from './config/config.sections';

export const API_PREFIX = 'api/v1';

export interface CreateAppOptions extends ConfigOptions {
  /** Nest's own logger; `false` silences it (tests). */
  logger?: false | undefined;
}

/**
 * Builds the service exactly as `main.ts` runs it: the same module, middleware, CORS, cookies and
 * prefix. Tests and embedding apps call this and then `listen` or `getHttpServer`.
 */
export async function createApp(options: CreateAppOptions = {}): Promise<INestApplication> {
  const module = await AppModule.forRoot(options);
  const app = await NestFactory.create<NestExpressApplication>(module, {
    bodyParser: false,
    abortOnError: false,
    ...(options.logger === false ? { logger: false } : {}),
  });
  const config = app.get(AppConfig);

  app.disable('x-powered-by');
  // Responses are small, personal and not cacheable: hashing each body for an ETag is waste.
  app.set('etag', false);
  app.set('trust proxy', config.trustProxy);
  app.use(apiSecurityHeaders());
  app.use(corsForBrowsers(config.corsOrigins));
  app.use(cookieParser());
  app.use(jsonBody());
  app.setGlobalPrefix(API_PREFIX);
  app.enableShutdownHooks();
  return app;
}
