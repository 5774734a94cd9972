import { MailerService } from '@nestjs-modules/mailer';
import { EmailKind, Metrics } from '../metrics/metrics.service';
import { Injectable } from '@nestjs/common';
import { AppConfig } from '../config/config.sections';
import { appNameFrom } from './app-name';

export interface TokenMail {
  /** The address stored on the account, never one typed in a request. */
  to: string;
  username: string;
  token: string;
  /** Where the link leads; already checked against APP_ORIGINS. */
  applicationUrl?: string;
  /** Seconds the token stays valid, for the wording. */
  ttl: number;
}

/** The mail could not be handed to the transport (SMTP refused, unreachable, timed out). */
export class MailDeliveryError extends Error {
  /** What the SMTP server or the connection said, short enough for a log line. */
  readonly reason: string;
  constructor(cause: unknown) {
    super(`Mail delivery failed: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'MailDeliveryError';
    this.reason = describe(cause);
  }
}

type Kind = 'verification' | 'password-reset';

const METRIC_KIND: Record<Kind, EmailKind> = {
  verification: 'verification',
  'password-reset': 'password_reset',
};

/**
 * The mailer fills `{{appName}}` in a subject from the context, once: a subject built here would
 * be scanned for `{{…}}` again, with the app name already in it.
 */
const KINDS: Record<Kind, { servicePath: string; subject: string }> = {
  verification: {
    servicePath: '/api/v1/auth/verify-email',
    subject: 'Verify your email for {{appName}}',
  },
  'password-reset': {
    servicePath: '/api/v1/auth/reset-password',
    subject: 'Reset your {{appName}} password',
  },
};

/**
 * What an email's templates see, as top-level names: the mailer's text templates read no nested
 * ones. None of them is a Pug option, and the mailer's Pug options are applied over them.
 */
export type EmailContext = {
  appName: string;
  username: string;
  email: string;
  link: string;
  validFor: string;
};

/**
 * Hands the mailer a template name and a context: it renders `views/emails/<kind>.pug` (HTML) and
 * `<kind>.txt` (plain text) and sends through the configured transport.
 */
@Injectable()
export class MailService {
  constructor(
    private readonly mailer: MailerService,
    private readonly app: AppConfig,
    private readonly metrics: Metrics,
  ) {}

  /** The SMTP server answers a connection and a greeting (readiness); true for the outbox. */
  reachable(): Promise<boolean> {
    return this.mailer.verifyAllTransporters();
  }

  sendVerificationEmail(message: TokenMail): Promise<void> {
    return this.send('verification', message);
  }

  sendPasswordResetEmail(message: TokenMail): Promise<void> {
    return this.send('password-reset', message);
  }

  /**
   * The link is `applicationUrl?token=…`, or the service's own page (which never consumes the
   * token on GET, so mail scanners that open links do no harm).
   */
  private link(kind: Kind, token: string, applicationUrl?: string): string {
    const url = new URL(applicationUrl ?? `${this.app.publicUrl}${KINDS[kind].servicePath}`);
    url.searchParams.set('token', token);
    return url.toString();
  }

  private async send(kind: Kind, message: TokenMail): Promise<void> {
    const hours = Math.round(message.ttl / 3600);
    const context: EmailContext = {
      appName: appNameFrom(message.applicationUrl, this.app.appName),
      username: message.username,
      email: message.to,
      link: this.link(kind, message.token, message.applicationUrl),
      validFor:
        hours >= 1
          ? `${hours} hour${hours === 1 ? '' : 's'}`
          : `${Math.round(message.ttl / 60)} minutes`,
    };
    try {
      await this.mailer.sendMail({
        // One recipient object: an address is never parsed as a list.
        to: { name: '', address: message.to },
        subject: KINDS[kind].subject,
        template: kind,
        textTemplate: kind,
        context,
      });
      this.metrics.email(METRIC_KIND[kind], 'sent');
    } catch (error) {
      this.metrics.email(METRIC_KIND[kind], 'failed');
      // Logged by the caller, which knows the request it was sent for.
      throw new MailDeliveryError(error);
    }
  }
}

/** A transport error's code and SMTP reply code, never a message body or credentials. */
function describe(error: unknown): string {
  const { code, responseCode } = (error ?? {}) as { code?: string; responseCode?: number };
  return [code, responseCode].filter(Boolean).join(' ') || 'unknown error';
}
