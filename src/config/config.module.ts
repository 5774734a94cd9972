import { DynamicModule, Module, Provider } from '@nestjs/common';
import { ConfigModule, ConfigService } from '@nestjs/config';
import { CONFIG_SECTIONS, Config } from './config.sections';
import { loadConfig } from './config.loader';
import { RawEnv } from './env.reader';

export interface ConfigOptions {
  /** Values that win over the process environment and `.env` (tests, embedding apps). */
  env?: RawEnv;
  /** Read neither `.env` nor `process.env`: only `env` above counts. */
  isolated?: boolean;
}

const sectionProviders: Provider[] = Object.entries(CONFIG_SECTIONS).map(([name, token]) => ({
  provide: token,
  useFactory: (config: ConfigService<Config, true>): unknown => config.get(name as keyof Config),
  inject: [ConfigService],
}));

/** Feature modules import this to inject the typed sections (`JwtConfig`, `MailConfig`, …). */
@Module({
  providers: sectionProviders,
  exports: Object.values(CONFIG_SECTIONS),
})
export class ConfigSectionsModule {}

/**
 * Validation runs here, once, while the module is built: a bad variable rejects this promise
 * before Nest starts anything, and the bootstrap prints its one-line message.
 */
export function configRoot(options: ConfigOptions = {}): Promise<DynamicModule> {
  return ConfigModule.forRoot({
    isGlobal: true,
    cache: true,
    ignoreEnvFile: options.isolated === true,
    ignoreEnvVars: options.isolated === true,
    validate: (raw: RawEnv) => loadConfig({ ...raw, ...options.env }),
  });
}
