import { setFlagsFromString } from 'node:v8';
// Grow the heap by 10 % rather than V8's default factor of several times: under load V8 would
// otherwise let short-lived request garbage pile up to over 100 MB above a ~40 MB live heap
// before collecting it. Set first, before anything allocates; measured in docs/performance.md.
setFlagsFromString('--heap-growing-percent=10');
import 'reflect-metadata';
import { INestApplication, Logger } from '@nestjs/common';
import { createApp } from './app.factory';
import { AppConfig } from './config/config.sections';
import { ConfigError } from './config/env.reader';

async function main(): Promise<void> {
  const app = await createApp();
  const config = app.get(AppConfig);
  await listen(app, config.port, config.host);
  new Logger('Bootstrap').log(`Listening on ${config.publicUrl}/api/v1 (port ${config.port})`);
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
  // A configuration error is one line naming the variable; anything else is a boot failure.
  const line =
    error instanceof ConfigError
      ? error.message
      : `Failed to start: ${error instanceof Error ? error.message : String(error)}`;
  process.stderr.write(`${line}\n`);
  process.exit(1);
});
