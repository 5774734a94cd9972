import { INestApplication, LoggerService, ModuleMetadata, Type } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { DestinationStream } from 'pino';
import { DataSource } from 'typeorm';
import { createTestingApp } from '../../src/app.factory';
import { AppModule } from '../../src/app.module';
import { ConfigSource } from '../../src/config/config-source';
import { LogOutput } from '../../src/logging/log-output';
import { ReceivedMail, readOutbox } from './mailbox';
import { TestDatabase, createTestDatabase } from './test-database';

export const ACCESS_SECRET = 'test-access-secret-0123456789-abcdefghijklmnop';
export const REFRESH_SECRET = 'test-refresh-secret-0123456789-abcdefghijklmno';
export const APP_ORIGIN = 'http://localhost:5173';
export const MFA_KEY = Buffer.alloc(32, 24).toString('base64');

/** The platform the suites run on: Express unless CI's second pass sets HTTP_PLATFORM=fastify. */
export const HTTP_PLATFORM = process.env.HTTP_PLATFORM ?? 'express';

export interface TestApp {
  app: INestApplication;
  http: () => ReturnType<typeof request>;
  dataSource: DataSource;
  database: TestDatabase;
  outboxDir: string;
  /** Every mail in the development outbox, oldest first. */
  outbox(): Promise<ReceivedMail[]>;
  close(): Promise<void>;
}

export interface BuildOptions {
  /** Takes Nest's own lines (the JSON log stays silent unless LOG_LEVEL says otherwise). */
  logger?: LoggerService;
  /** The service's JSON log lines, written here (LOG_LEVEL applies). */
  logDestination?: DestinationStream;
  /** A team's own modules and controllers, beside AppModule in the testing module. */
  imports?: ModuleMetadata['imports'];
  controllers?: Type[];
}

/**
 * The whole service built the Nest way, as a team's integration test would:
 * `Test.createTestingModule({ imports: [AppModule] })` with the configuration provider replaced by
 * exactly `env` (neither `.env` nor the developer's environment leaks in), then initialised on
 * the platform HTTP_PLATFORM names.
 */
export async function buildApp(
  env: Record<string, string>,
  options: BuildOptions = {},
): Promise<INestApplication> {
  let builder = Test.createTestingModule({
    imports: [AppModule, ...(options.imports ?? [])],
    controllers: options.controllers,
  })
    .overrideProvider(ConfigSource)
    .useValue(
      ConfigSource.isolated({
        HTTP_PLATFORM,
        LOG_LEVEL: options.logDestination || process.env.TEST_LOGS ? 'info' : 'silent',
        ...env,
      }),
    );
  if (options.logDestination) {
    builder = builder.overrideProvider(LogOutput).useValue(new LogOutput(options.logDestination));
  }
  const moduleRef = await builder.compile();
  return createTestingApp(moduleRef, { logger: options.logger });
}

/**
 * The real service on its own database and outbox, configured only by what the test passes.
 */
export async function startTestApp(
  env: Record<string, string> = {},
  options: BuildOptions & {
    /** Another instance's database, shared (and dropped by whoever created it). */
    database?: TestDatabase;
  } = {},
): Promise<TestApp> {
  const database = options.database ?? (await createTestDatabase());
  const ownsDatabase = options.database === undefined;
  const dataDir = mkdtempSync(join(tmpdir(), 'auth-test-'));
  const outboxDir = join(dataDir, 'mail');
  const discard = async () => {
    if (ownsDatabase) await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  // An app that fails to start (a suite testing bad configuration) leaves no database behind.
  const app = await buildApp(
    {
      NODE_ENV: 'test',
      DATABASE_URL: database.url,
      DATA_DIR: dataDir,
      MAIL_OUTBOX_DIR: outboxDir,
      JWT_ACCESS_SECRET: ACCESS_SECRET,
      JWT_REFRESH_SECRET: REFRESH_SECRET,
      MFA_ENCRYPTION_KEY: MFA_KEY,
      CORS_ORIGINS: APP_ORIGIN,
      BCRYPT_COST: '4',
      THROTTLE_LIMIT: '100000',
      THROTTLE_AUTH_LIMIT: '100000',
      // Suites mail one address more often than a person would; the cap's own suites set it.
      MAIL_RECIPIENT_LIMIT: '100000',
      // A mail SMTP refused is not retried during a suite (it would land in another test's
      // mailbox); the queue's own suite sets a short schedule.
      MAIL_RETRY_SCHEDULE: '3600',
      ...env,
    },
    options,
  ).catch(async (error: unknown) => {
    await discard();
    throw error;
  });
  return {
    app,
    http: () => request(app.getHttpServer()),
    dataSource: app.get(DataSource),
    database,
    outboxDir,
    outbox: () => readOutbox(outboxDir),
    close: async () => {
      await app.close();
      await discard();
    },
  };
}
