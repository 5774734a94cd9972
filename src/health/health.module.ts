import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { ConfigSectionsModule } from '../config/config.module';
import { DatabaseModule } from '../database/database.module';
import { MailModule } from '../mail/mail.module';
import { RedisModule } from '../redis/redis.module';
import { HealthController } from './health.controller';

@Module({
  // Terminus logs every failed probe at error level; the outages themselves are logged where
  // they happen (Redis once per outage), so probes every few seconds stay quiet.
  imports: [
    TerminusModule.forRoot({ logger: false }),
    ConfigSectionsModule,
    DatabaseModule,
    RedisModule,
    MailModule,
  ],
  controllers: [HealthController],
})
export class HealthModule {}
