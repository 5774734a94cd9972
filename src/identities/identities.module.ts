import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ConfigSectionsModule } from '../config/config.module';
import { DatabaseModule } from '../database/database.module';
import { IdentitiesService } from './identities.service';
import { SsoRequirement } from './sso-requirement';
import { UserIdentity } from './user-identity.entity';
import { SignInMethodsModule } from '../auth/sign-in-methods.module';
import { IdentityProviderWayIn } from './identity-provider.way-in';

/**
 * The identities linked to accounts, apart from the sign-in flows (FederationModule) so that
 * passkeys can count them as a way in without depending on the flows; and the rule of a domain
 * that must sign in through its provider, which the sign-ins and the passkeys both apply.
 */
@Module({
  imports: [
    ConfigSectionsModule,
    DatabaseModule,
    SignInMethodsModule,
    TypeOrmModule.forFeature([UserIdentity]),
  ],
  providers: [IdentitiesService, IdentityProviderWayIn, SsoRequirement],
  exports: [IdentitiesService, SsoRequirement],
})
export class IdentitiesModule {}
