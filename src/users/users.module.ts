import { Module } from '@nestjs/common';
import { ConfigSectionsModule } from '../config/config.module';
import { DatabaseModule } from '../database/database.module';
import { UsersService } from './users.service';

@Module({
  imports: [ConfigSectionsModule, DatabaseModule],
  providers: [UsersService],
  exports: [UsersService],
})
export class UsersModule {}
