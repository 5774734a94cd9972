import { Module } from '@nestjs/common';
import { ConfigSectionsModule } from '../config/config.module';
import { DatabaseModule } from '../database/database.module';
import { RedisModule } from '../redis/redis.module';
import { UserDirectory } from './user-directory.service';
import { UserGenerations } from './user-generations.service';
import { UsersService } from './users.service';

@Module({
  imports: [ConfigSectionsModule, DatabaseModule, RedisModule],
  providers: [UsersService, UserGenerations, UserDirectory],
  exports: [UsersService, UserDirectory],
})
export class UsersModule {}
