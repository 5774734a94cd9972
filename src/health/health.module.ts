import { Module } from '@nestjs/common';
import { ConfigSectionsModule } from '../config/config.module';
import { DatabaseModule } from '../database/database.module';
import { MailModule } from '../mail/mail.module';
import { RedisModule } from '../redis/redis.module';
import { HealthController } from './health.controller';
import { Readiness } from './readiness.service';

@Module({
  imports: [ConfigSectionsModule, DatabaseModule, RedisModule, MailModule],
  controllers: [HealthController],
  providers: [Readiness],
})
export class HealthModule {}
