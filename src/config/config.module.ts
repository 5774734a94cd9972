import { Module, Provider } from '@nestjs/common';
import { ConfigSource } from './config-source';
import { CONFIG_SECTIONS, Config } from './config.sections';
import { loadConfig } from './config.loader';

/** The whole validated configuration; feature code injects its typed sections instead. */
export const VALIDATED_CONFIG = Symbol('VALIDATED_CONFIG');

const sectionProviders: Provider[] = Object.entries(CONFIG_SECTIONS).map(([name, token]) => ({
  provide: token,
  useFactory: (config: Config): unknown => config[name as keyof Config],
  inject: [VALIDATED_CONFIG],
}));

/**
 * Feature modules import this to inject the typed sections (`JwtConfig`, `MailConfig`, …). One
 * module instance serves the whole app, so validation runs once, while the app is built: a bad
 * variable throws a ConfigError before anything starts, and the bootstrap prints its one line.
 */
@Module({
  providers: [
    { provide: ConfigSource, useFactory: () => new ConfigSource() },
    {
      provide: VALIDATED_CONFIG,
      inject: [ConfigSource],
      useFactory: (source: ConfigSource): Config => loadConfig(source.read()),
    },
    ...sectionProviders,
  ],
  exports: Object.values(CONFIG_SECTIONS),
})
export class ConfigSectionsModule {}
