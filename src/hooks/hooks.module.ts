import { Module } from '@nestjs/common';
import { ConfigSectionsModule } from '../config/config.module';
import { BlockingHooks } from './blocking-hooks';
import { HookCaller } from './hook-caller';

/**
 * The blocking hooks (docs/hooks.md): `before_user_created` and `custom_access_token`, called at
 * the configured URLs and provided in process by a module that imports this one and registers
 * with `BlockingHooks` (docs/extending.md).
 */
@Module({
  imports: [ConfigSectionsModule],
  providers: [BlockingHooks, HookCaller],
  exports: [BlockingHooks],
})
export class HooksModule {}
