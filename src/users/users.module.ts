import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ConfigSectionsModule } from '../config/config.module';
import { DatabaseModule } from '../database/database.module';
import { RedisModule } from '../redis/redis.module';
import { UserDirectory } from './user-directory.service';
import { UserGenerations } from './user-generations.service';
import { User } from './user.entity';
import { UsersService } from './users.service';

@Module({
  imports: [ConfigSectionsModule, DatabaseModule, RedisModule, TypeOrmModule.forFeature([User])],
  providers: [UsersService, UserGenerations, UserDirectory],
  exports: [UsersService, UserDirectory],
})
export class UsersModule {}
