import { MailerModule, MailerOptions } from '@nestjs-modules/mailer';
import { Module } from '@nestjs/common';
import { ConfigSectionsModule } from '../config/config.module';
import { MetricsModule } from '../metrics/metrics.module';
import { MailConfig } from '../config/config.sections';
import { OutboxTransport } from './outbox.transport';
import { MailService } from './mail.service';
import { smtpOptions } from './smtp-options';

@Module({
  imports: [
    ConfigSectionsModule,
    MetricsModule,
    MailerModule.forRootAsync({
      imports: [ConfigSectionsModule],
      inject: [MailConfig],
      useFactory: (mail: MailConfig): MailerOptions => ({
        transport: mail.smtpUrl
          ? smtpOptions(mail.smtpUrl, mail.timeoutMs)
          : new OutboxTransport(mail.outboxDir),
        // The mailer types `defaults` as transport options; nodemailer reads message defaults here.
        defaults: { from: mail.from } as MailerOptions['defaults'],
        // No template adapter: MailService renders the Pug views itself, on first use. The
        // mailer's adapters load Pug (and its preview tool) at boot, ~30 MB for nothing.
      }),
    }),
  ],
  providers: [MailService],
  exports: [MailService],
})
export class MailModule {}
