import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ConfigSectionsModule } from '../config/config.module';
import { DatabaseModule } from '../database/database.module';
import { EventsModule } from '../events/events.module';
import { SessionsModule } from '../sessions/sessions.module';
import { LinkedIdentitiesService } from './linked-identities.service';
import { UserIdentity } from './user-identity.entity';
import { SignInMethodsModule } from '../auth/sign-in-methods.module';
import { IdentityProviderWayIn } from './identity-provider.way-in';
import { UnprovenIdentities } from './unproven-identities.service';

/**
 * The identities linked to accounts, apart from the sign-in flows (IdentityProvidersModule): what an
 * account holds of the identity provider as a way in (IdentityProviderWayIn), which an account's
 * removal also reaches; a mailbox's first proof, announced by the core, undoes the links made
 * before it (UnprovenIdentities).
 */
@Module({
  imports: [
    ConfigSectionsModule,
    DatabaseModule,
    EventsModule,
    SessionsModule,
    SignInMethodsModule,
    TypeOrmModule.forFeature([UserIdentity]),
  ],
  providers: [LinkedIdentitiesService, IdentityProviderWayIn, UnprovenIdentities],
  exports: [LinkedIdentitiesService],
})
export class LinkedIdentitiesModule {}
