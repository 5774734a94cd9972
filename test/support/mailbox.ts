import { readFile, readdir } from 'node:fs/promises';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { SMTPServer, SMTPServerOptions } from 'smtp-server';

/** A message as a person would read it: who it went to, what it says, the link it carries. */
export interface ReceivedMail {
  to: string;
  from: string;
  subject: string;
  text: string;
  html: string;
  link: string;
  token: string;
  raw: string;
}

export async function parseMail(raw: string | Buffer): Promise<ReceivedMail> {
  const parsed = await simpleParser(raw);
  const to = Array.isArray(parsed.to) ? parsed.to[0] : parsed.to;
  const text = parsed.text ?? '';
  const link = /https?:\/\/\S+/.exec(text)?.[0] ?? '';
  return {
    to: to?.value.map((address) => address.address).join(',') ?? '',
    from: parsed.from?.value[0]?.address ?? '',
    subject: parsed.subject ?? '',
    text,
    html: typeof parsed.html === 'string' ? parsed.html : '',
    link,
    token: link ? (new URL(link).searchParams.get('token') ?? '') : '',
    raw: raw.toString(),
  };
}

/** Every `.eml` in the development outbox, oldest first. */
export async function readOutbox(dir: string): Promise<ReceivedMail[]> {
  const files = await readdir(dir).catch(() => [] as string[]);
  const sorted = files.filter((file) => file.endsWith('.eml')).sort();
  return Promise.all(sorted.map(async (file) => parseMail(await readFile(join(dir, file)))));
}

export interface SmtpFailure {
  /** An SMTP reply code: 4xx (try later) or 5xx (refused). */
  responseCode: number;
  message: string;
}

/**
 * A real SMTP server on loopback that keeps what it receives. `refuse` makes it answer the next
 * messages with an SMTP error, as a full mailbox or a rejecting relay would.
 */
export class SmtpSink {
  readonly received: ReceivedMail[] = [];
  refuse: SmtpFailure | undefined;
  private server!: SMTPServer;
  port = 0;

  async start(): Promise<this> {
    const options: SMTPServerOptions = {
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData: (stream, _session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          if (this.refuse) {
            const error = Object.assign(new Error(this.refuse.message), {
              responseCode: this.refuse.responseCode,
            });
            return callback(error);
          }
          parseMail(Buffer.concat(chunks)).then(
            (mail) => {
              this.received.push(mail);
              callback();
            },
            (error: Error) => callback(error),
          );
        });
      },
    };
    this.server = new SMTPServer(options);
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.server.address() as AddressInfo).port;
    return this;
  }

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  last(): ReceivedMail {
    const mail = this.received.at(-1);
    if (!mail) throw new Error('No mail received');
    return mail;
  }

  to(address: string): ReceivedMail[] {
    return this.received.filter((mail) => mail.to === address);
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
