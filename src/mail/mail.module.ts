import { MailerModule, MailerOptions } from '@nestjs-modules/mailer';
import { PugAdapter } from '@nestjs-modules/mailer/adapters/pug.adapter';
import { Module } from '@nestjs/common';
import { join } from 'node:path';
import { ConfigSectionsModule } from '../config/config.module';
import { MailConfig } from '../config/config.sections';
import { OutboxTransport } from './outbox.transport';
import { MailService } from './mail.service';
import { smtpOptions } from './smtp-options';

/** `views/` at the project root, from both `src/mail` and `dist/mail`. */
export const VIEWS_DIR = join(__dirname, '..', '..', 'views');

@Module({
  imports: [
    ConfigSectionsModule,
    MailerModule.forRootAsync({
      imports: [ConfigSectionsModule],
      inject: [MailConfig],
      useFactory: (mail: MailConfig): MailerOptions => ({
        transport: mail.smtpUrl
          ? smtpOptions(mail.smtpUrl, mail.timeoutMs)
          : new OutboxTransport(mail.outboxDir),
        // The mailer types `defaults` as transport options; nodemailer reads message defaults here.
        defaults: { from: mail.from } as MailerOptions['defaults'],
        template: {
          dir: join(VIEWS_DIR, 'emails'),
          // Styles are written inline in the templates; no CSS inliner runs.
          adapter: new PugAdapter({ inlineCssEnabled: false }),
          // Compile options are fixed here and applied over the data, which sits under `mail`.
          options: { cache: true, compileDebug: false, self: false },
        },
      }),
    }),
  ],
  providers: [MailService],
  exports: [MailService],
})
export class MailModule {}
