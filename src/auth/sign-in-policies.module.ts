import { Module } from '@nestjs/common';
import { ConfigSectionsModule } from '../config/config.module';
import { ApplicationUrlPolicy } from './application-url.policy';
import { SsoRequirement } from './sso-requirement';

/**
 * The operator's rules every way in follows, read from the configuration: where mailed links and
 * redirects may lead, and which email domains sign in through their provider only.
 */
@Module({
  imports: [ConfigSectionsModule],
  providers: [ApplicationUrlPolicy, SsoRequirement],
  exports: [ApplicationUrlPolicy, SsoRequirement],
})
export class SignInPoliciesModule {}
