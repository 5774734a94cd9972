import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { SentMessageInfo, Transport } from 'nodemailer';
import MailMessage from 'nodemailer/lib/mailer/mail-message';

/**
 * The development transport used when SMTP_URL is unset: each message is written as a complete
 * `.eml` file (open it in any mail client, or read the link in it), so a newcomer can finish
 * every email flow with nothing installed.
 */
export class OutboxTransport implements Transport<SentMessageInfo> {
  readonly name = 'outbox';
  readonly version = '1';
  private readonly logger = new Logger('MailOutbox');

  constructor(private readonly dir: string) {}

  send(mail: MailMessage, callback: (error: Error | null, info?: SentMessageInfo) => void): void {
    this.write(mail).then(
      (info) => callback(null, info),
      (error: Error) => callback(error),
    );
  }

  private async write(mail: MailMessage): Promise<SentMessageInfo> {
    const raw = await mail.message.build();
    await mkdir(this.dir, { recursive: true });
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    const file = join(this.dir, `${stamp}-${randomUUID()}.eml`);
    await writeFile(file, raw, { mode: 0o600 });
    // The file, never the link: the link carries a live token and a log must not.
    this.logger.log(`Mail written to ${relative(process.cwd(), file) || file}`);
    return { envelope: mail.message.getEnvelope(), messageId: mail.message.messageId(), file };
  }
}
