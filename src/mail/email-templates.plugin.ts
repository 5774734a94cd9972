import { MailerOptions, MailerPlugin, TemplateAdapter } from '@nestjs-modules/mailer';

interface TemplateMail {
  data: { template?: string; html?: unknown; text?: unknown };
}

/**
 * Nodemailer's compile step for a mail sent with a `template`: the adapter renders the HTML part,
 * as the mailer does for `template.adapter`. By then the mailer has rendered the `textTemplate`,
 * but it only warns when that file is missing; a mail without its text part fails here instead,
 * like a broken Pug template.
 */
export function emailTemplates(
  adapter: TemplateAdapter,
  options: MailerOptions,
): MailerPlugin['plugin'] {
  return (mail, callback) => {
    const { data } = mail as TemplateMail;
    if (!data.template || data.html) return callback();
    if (!data.text) {
      return callback(
        new Error(
          `The email "${data.template}" has no text part: its .txt template is missing or empty`,
        ),
      );
    }
    adapter.compile(mail, callback, options);
  };
}
