import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ConfigSectionsModule } from '../config/config.module';
import { DatabaseModule } from '../database/database.module';
import { LinkedIdentitiesService } from './linked-identities.service';
import { UserIdentity } from './user-identity.entity';
import { SignInMethodsModule } from '../auth/sign-in-methods.module';
import { IdentityProviderWayIn } from './identity-provider.way-in';

/**
 * The identities linked to accounts, apart from the sign-in flows (IdentityProvidersModule): what an
 * account holds of the identity provider as a way in (IdentityProviderWayIn), which an email
 * link's first proof and an account's removal also reach.
 */
@Module({
  imports: [
    ConfigSectionsModule,
    DatabaseModule,
    SignInMethodsModule,
    TypeOrmModule.forFeature([UserIdentity]),
  ],
  providers: [LinkedIdentitiesService, IdentityProviderWayIn],
  exports: [LinkedIdentitiesService],
})
export class LinkedIdentitiesModule {}
