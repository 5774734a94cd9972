import { MailerModule } from '@nestjs-modules/mailer';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ConfigSectionsModule } from '../config/config.module';
import { DatabaseModule } from '../database/database.module';
import { MetricsModule } from '../metrics/metrics.module';
import { RedisModule } from '../redis/redis.module';
import { SecretBox } from '../common/crypto/secret-box';
import { MailConfig } from '../config/config.sections';
import { AfterAnswer } from './after-answer.service';
import { MailQueueMetrics } from './mail-queue-metrics';
import { MailQueueWorker } from './mail-queue-worker.service';
import { MailQueue } from './mail-queue.service';
import { MailRecipientCap } from './mail-recipient-cap.service';
import { MailService } from './mail.service';
import { mailerOptions } from './mailer-options';
import { QueuedMail } from './queued-mail.entity';

/** Mail: sent at once (MailService), or queued in a change's transaction (MailQueue). */
@Module({
  imports: [
    ConfigSectionsModule,
    DatabaseModule,
    MetricsModule,
    RedisModule,
    MailerModule.forRootAsync({
      imports: [ConfigSectionsModule],
      inject: [MailConfig],
      useFactory: mailerOptions,
    }),
    TypeOrmModule.forFeature([QueuedMail]),
  ],
  providers: [
    MailService,
    MailRecipientCap,
    AfterAnswer,
    SecretBox,
    MailQueue,
    MailQueueMetrics,
    MailQueueWorker,
  ],
  exports: [MailService, MailRecipientCap, AfterAnswer, MailQueue],
})
export class MailModule {}
