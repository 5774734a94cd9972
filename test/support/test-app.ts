import { INestApplication, LoggerService } from '@nestjs/common';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { DestinationStream } from 'pino';
import { DataSource } from 'typeorm';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createReadyApp } from '../../src/app.factory';
import { ReceivedMail, readOutbox } from './mailbox';
import { TestDatabase, createTestDatabase } from './test-database';

export const ACCESS_SECRET = 'test-access-secret-0123456789-abcdefghijklmnop';
export const REFRESH_SECRET = 'test-refresh-secret-0123456789-abcdefghijklmno';
export const APP_ORIGIN = 'http://localhost:5173';

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

/**
 * The real service (same factory as main.ts) on its own database and outbox, configured only by
 * what the test passes: neither `.env` nor the developer's environment leaks in.
 */
export async function startTestApp(
  env: Record<string, string> = {},
  options: {
    /** Another instance's database, shared (and dropped by whoever created it). */
    database?: TestDatabase;
    logger?: LoggerService;
    /** The service's JSON log lines, written here (LOG_LEVEL applies). */
    logDestination?: DestinationStream;
    /** Runs before the routes are registered (see createReadyApp). */
    beforeInit?: (app: NestFastifyApplication) => void;
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
  const app = await createReadyApp(
    {
      isolated: true,
      logger: options.logDestination
        ? undefined
        : (options.logger ?? (process.env.TEST_LOGS ? undefined : false)),
      logDestination: options.logDestination,
      env: {
        NODE_ENV: 'test',
        DATABASE_URL: database.url,
        DATA_DIR: dataDir,
        MAIL_OUTBOX_DIR: outboxDir,
        JWT_ACCESS_SECRET: ACCESS_SECRET,
        JWT_REFRESH_SECRET: REFRESH_SECRET,
        CORS_ORIGINS: APP_ORIGIN,
        BCRYPT_COST: '4',
        THROTTLE_LIMIT: '100000',
        THROTTLE_AUTH_LIMIT: '100000',
        ...env,
      },
    },
    options.beforeInit,
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
