import { Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { AppConfig, MailConfig } from '../config/config.sections';

export interface VerificationMail {
  /** The address stored on the account, never one typed in a request. */
  to: string;
  username: string;
  token: string;
  applicationUrl?: string;
}

/**
 * The seam through which the service sends its emails. Until the SMTP mailer lands (next issue),
 * every mail goes to the development outbox: one `.eml` file per message under MAIL_OUTBOX_DIR.
 */
@Injectable()
export class MailService {
  private readonly logger = new Logger(MailService.name);

  constructor(
    private readonly mail: MailConfig,
    private readonly app: AppConfig,
  ) {}

  async sendVerificationEmail(message: VerificationMail): Promise<void> {
    const link = this.link(message.token, message.applicationUrl, '/api/v1/auth/verify-email');
    await this.writeToOutbox(
      message.to,
      `Verify your email for ${this.app.appName}`,
      `Hello ${message.username},\r\n\r\nConfirm your email address by opening this link:\r\n${link}\r\n`,
    );
  }

  private link(token: string, applicationUrl: string | undefined, servicePath: string): string {
    const url = new URL(applicationUrl ?? `${this.app.publicUrl}${servicePath}`);
    url.searchParams.set('token', token);
    return url.toString();
  }

  private async writeToOutbox(to: string, subject: string, text: string): Promise<void> {
    await mkdir(this.mail.outboxDir, { recursive: true });
    const file = join(
      this.mail.outboxDir,
      `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomUUID()}.eml`,
    );
    const headers = [
      `From: ${this.mail.from}`,
      `To: ${to}`,
      `Subject: ${subject}`,
      `Date: ${new Date().toUTCString()}`,
      'MIME-Version: 1.0',
      'Content-Type: text/plain; charset=utf-8',
    ];
    await writeFile(file, `${headers.join('\r\n')}\r\n\r\n${text}`, { mode: 0o600 });
    // The path, not the link: the link carries a live token and logs must never hold one.
    this.logger.log(`Mail written to ${relative(process.cwd(), file)}`);
  }
}
