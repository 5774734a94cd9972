import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse } from 'dotenv';
import { RawEnv } from './env.reader';

/**
 * Where the configuration's raw values come from: by default `.env` in the working directory
 * with the process environment winning over it. A test overrides this provider
 * (`overrideProvider(ConfigSource).useValue(ConfigSource.isolated({ ... }))`) to run the service
 * on values of its own; validation is the same either way.
 */
export class ConfigSource {
  constructor(
    /** Values that win over the process environment and `.env`. */
    private readonly overrides: RawEnv = {},
    /** Read neither `.env` nor `process.env`: only the values above count. */
    private readonly isolatedFromProcess = false,
  ) {}

  /** Only the given values: the developer's `.env` and environment do not leak in. */
  static isolated(env: RawEnv): ConfigSource {
    return new ConfigSource(env, true);
  }

  read(): RawEnv {
    if (this.isolatedFromProcess) return { ...this.overrides };
    return { ...dotEnvFile(), ...process.env, ...this.overrides };
  }
}

function dotEnvFile(): RawEnv {
  const file = resolve('.env');
  return existsSync(file) ? parse(readFileSync(file)) : {};
}
