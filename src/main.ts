import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { createApp } from './app.factory';
import { AppConfig } from './config/config.sections';
import { ConfigError } from './config/env.reader';

async function main(): Promise<void> {
  const app = await createApp();
  const config = app.get(AppConfig);
  await app.listen(config.port);
  new Logger('Bootstrap').log(`Listening on ${config.publicUrl}/api/v1 (port ${config.port})`);
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
