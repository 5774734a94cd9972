import { MailerOptions } from '@nestjs-modules/mailer';
import { join } from 'node:path';
import { VIEWS_DIR } from '../common/views/pug-views';
import { MailConfig } from '../config/config.sections';
import { emailTemplates } from './email-templates.plugin';
import { LazyPugAdapter } from './lazy-pug.adapter';
import { OutboxTransport } from './outbox.transport';
import { smtpOptions } from './smtp-options';

/** `<name>.pug` (the HTML part, with `views/layouts/email.pug`) and `<name>.txt` (plain text). */
export const EMAILS_DIR = join(VIEWS_DIR, 'emails');

/**
 * Pug reads its options and the template's values from one object, the context with these
 * applied over it: nothing in a context can turn on debugging or change how a template compiles.
 */
export const PUG_OPTIONS = { cache: true, compileDebug: false, debug: false, self: false };

export function mailerOptions(mail: MailConfig): MailerOptions {
  const template = { dir: EMAILS_DIR, options: PUG_OPTIONS };
  return {
    transport: mail.smtpUrl
      ? smtpOptions(mail.smtpUrl, mail.timeoutMs)
      : new OutboxTransport(mail.outboxDir),
    // The mailer types `defaults` as transport options; nodemailer reads message defaults here.
    defaults: { from: mail.from } as MailerOptions['defaults'],
    template,
    // The Pug adapter goes in as a compile plugin rather than as `template.adapter`: with an
    // adapter there, the mailer also loads preview-email at boot (with Pug, a mail parser and a
    // second nodemailer) for a preview this service never opens (docs/performance.md).
    plugins: [{ step: 'compile', plugin: emailTemplates(new LazyPugAdapter(), { template }) }],
  };
}
