import { MailerOptions, TemplateAdapter } from '@nestjs-modules/mailer';

/**
 * The mailer's own PugAdapter, constructed when the first email is rendered: its module loads Pug
 * and a native CSS inliner as it is imported, and most processes send no mail for a long while.
 */
export class LazyPugAdapter implements TemplateAdapter {
  private adapter?: Promise<TemplateAdapter>;

  compile(mail: unknown, callback: (error?: unknown) => void, options: MailerOptions): void {
    this.adapter ??= import('@nestjs-modules/mailer/adapters/pug.adapter').then(
      // The templates carry their styles inline already: the inliner would only re-parse them.
      ({ PugAdapter }) => new PugAdapter({ inlineCssEnabled: false }),
    );
    this.adapter.then((adapter) => adapter.compile(mail, callback, options)).catch(callback);
  }
}
