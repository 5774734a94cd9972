import { MailerModule } from '@nestjs-modules/mailer';
import { Module } from '@nestjs/common';
import { ConfigSectionsModule } from '../config/config.module';
import { MetricsModule } from '../metrics/metrics.module';
import { MailConfig } from '../config/config.sections';
import { MailService } from './mail.service';
import { mailerOptions } from './mailer-options';

@Module({
  imports: [
    ConfigSectionsModule,
    MetricsModule,
    MailerModule.forRootAsync({
      imports: [ConfigSectionsModule],
      inject: [MailConfig],
      useFactory: mailerOptions,
    }),
  ],
  providers: [MailService],
  exports: [MailService],
})
export class MailModule {}
