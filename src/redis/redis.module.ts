import { Module } from '@nestjs/common';
import { ConfigSectionsModule } from '../config/config.module';
import { RedisService } from './redis.service';

@Module({
  imports: [ConfigSectionsModule],
  providers: [RedisService],
  exports: [RedisService],
})
export class RedisModule {}
