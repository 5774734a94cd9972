import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DatabaseModule } from '../database/database.module';
import { IdentitiesService } from './identities.service';
import { UserIdentity } from './user-identity.entity';

/**
 * The identities linked to accounts, apart from the sign-in flows (FederationModule) so that
 * passkeys can count them as a way in without depending on the flows.
 */
@Module({
  imports: [DatabaseModule, TypeOrmModule.forFeature([UserIdentity])],
  providers: [IdentitiesService],
  exports: [IdentitiesService],
})
export class IdentitiesModule {}
