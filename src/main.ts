import { setFlagsFromString } from 'node:v8';
// Grow the heap by 10 % rather than V8's default factor of several times: under load V8 would
// otherwise let short-lived request garbage pile up to over 100 MB above a ~40 MB live heap
// before collecting it. Set first, before anything allocates; measured in docs/performance.md.
setFlagsFromString('--heap-growing-percent=10');
import 'reflect-metadata';
import { INestApplication, Logger } from '@nestjs/common';
import { Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { createApp } from './app.factory';
import { AppConfig } from './config/config.sections';
import { ConfigError } from './config/env.reader';
import { StartLog } from './logging/start-log';

/** A stop that takes longer than this (a request stuck on a dead peer) is cut short. */
const SHUTDOWN_LIMIT_MS = 30_000;

async function main(): Promise<void> {
  const app = await createApp();
  const config = app.get(AppConfig);
  await listen(app, config.port, config.host);
  stopOnSignals(app);
  const { port } = (app.getHttpServer() as Server).address() as AddressInfo;
  app.get(StartLog).listening(urlOnPort(config.publicUrl, port), port);
}

/**
 * With PORT=0 the system picks the port while listening, after the configuration was read; a URL
 * naming port 0 (PUBLIC_URL's default then) is logged with the port obtained.
 */
function urlOnPort(url: string, port: number): string {
  const parsed = new URL(url);
  if (parsed.port !== '0') return url;
  parsed.port = String(port);
  return parsed.href.replace(/\/+$/, '');
}

/**
 * SIGTERM (or SIGINT): stop accepting connections, let the requests in flight finish, then close
 * the hash workers, the database (the SQLite file is saved) and Redis, and exit 0. Nest's own
 * signal handling would re-raise the signal, and the process would end as killed.
 */
function stopOnSignals(app: INestApplication): void {
  const logger = new Logger('Shutdown');
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.log(`${signal}: finishing the requests in flight, then stopping`);
    setTimeout(() => {
      logger.error(`Still stopping after ${SHUTDOWN_LIMIT_MS / 1000} s: exiting now`);
      process.exit(1);
    }, SHUTDOWN_LIMIT_MS).unref();
    app.close().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error(`Stopping failed: ${error instanceof Error ? error.message : String(error)}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

/** As Node's own `listen(port)`: every interface, IPv6 included where the machine has it. */
async function listen(app: INestApplication, port: number, host: string | undefined) {
  if (host !== undefined) {
    await app.listen(port, host);
    return;
  }
  try {
    await app.listen(port, '::');
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code !== 'EAFNOSUPPORT' && code !== 'EADDRNOTAVAIL') throw error;
    await app.listen(port, '0.0.0.0');
  }
}

main().catch((error: unknown) => {
  // A configuration error is one line naming every bad variable; anything else is a boot failure.
  const line =
    error instanceof ConfigError
      ? error.message
      : `Failed to start: ${error instanceof Error ? error.message : String(error)}`;
  process.stderr.write(`${line}\n`);
  process.exit(1);
});
