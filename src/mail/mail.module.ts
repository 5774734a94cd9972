import { MailerModule } from '@nestjs-modules/mailer';
import { Module } from '@nestjs/common';
import { ConfigSectionsModule } from '../config/config.module';
import { MetricsModule } from '../metrics/metrics.module';
import { RedisModule } from '../redis/redis.module';
import { MailConfig } from '../config/config.sections';
import { MailRecipientCap } from './mail-recipient-cap.service';
import { MailService } from './mail.service';
import { mailerOptions } from './mailer-options';

@Module({
  imports: [
    ConfigSectionsModule,
    MetricsModule,
    RedisModule,
    MailerModule.forRootAsync({
      imports: [ConfigSectionsModule],
      inject: [MailConfig],
      useFactory: mailerOptions,
    }),
  ],
  providers: [MailService, MailRecipientCap],
  exports: [MailService, MailRecipientCap],
})
export class MailModule {}
