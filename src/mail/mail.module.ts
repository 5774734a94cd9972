import { MailerModule } from '@nestjs-modules/mailer';
import { Module } from '@nestjs/common';
import { ConfigSectionsModule } from '../config/config.module';
import { MetricsModule } from '../metrics/metrics.module';
import { RedisModule } from '../redis/redis.module';
import { MailConfig } from '../config/config.sections';
import { AfterAnswer } from './after-answer.service';
import { MailRecipientCap } from './mail-recipient-cap.service';
import { MailService } from './mail.service';
import { mailerOptions } from './mailer-options';
import { PasswordChangedNotice } from './password-changed-notice.service';

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
  providers: [MailService, MailRecipientCap, AfterAnswer, PasswordChangedNotice],
  exports: [MailService, MailRecipientCap, AfterAnswer, PasswordChangedNotice],
})
export class MailModule {}
