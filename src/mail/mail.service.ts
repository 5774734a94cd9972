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

/** A sign-in code: the six digits, and the link (`token`) that does the same once. */
export interface CodeMail extends TokenMail {
  code: string;
}

/** A step-up's code: the six digits alone (it has no link: it signs no one in). */
export interface ReauthenticationCodeMail {
  /** The address stored on the account. */
  to: string;
  username: string;
  code: string;
  /** Seconds the code stays valid, for the wording. */
  ttl: number;
}

/**
 * A notice about something done to or with the account: nothing in it logs anyone in. The only
 * link one carries is the undo of an email change, to the old address.
 */
export interface NoticeMail {
  /** The address stored on the account (for an email change: the old one). */
  to: string;
  username: string;
  /** When the change was made. */
  at: Date;
  /** The client address the change came from, as TRUST_PROXY lets the service see it. */
  ip: string | undefined;
  /** For an email change: the address the account moved to. */
  newEmail?: string;
  /** For an identity linked: the provider's display name. */
  providerName?: string;
  /** For an email changed: the token of the link that moves the account back, and its life. */
  undo?: { token: string; ttl: number };
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

type Kind = 'verification' | 'password-reset' | 'email-change' | 'email-code';
/** Mails with a code and no link. */
type CodeKind = 'reauthentication-code';
type NoticeKind =
  | 'password-changed'
  | 'email-change-requested'
  | 'email-changed'
  | 'registration-attempt'
  | 'mfa-enabled'
  | 'mfa-disabled'
  | 'recovery-code-used'
  | 'identity-linked';

/** The notices about the second factor, each sent by SecondFactorService after the change. */
export type MfaNotice = Extract<NoticeKind, `mfa-${string}` | 'recovery-code-used'>;

const METRIC_KIND: Record<Kind | CodeKind | NoticeKind, EmailKind> = {
  verification: 'verification',
  'reauthentication-code': 'reauthentication_code',
  'password-reset': 'password_reset',
  'email-change': 'email_change',
  'email-code': 'email_code',
  'password-changed': 'password_changed',
  'email-change-requested': 'email_change_requested',
  'email-changed': 'email_changed',
  'registration-attempt': 'registration_attempt',
  'mfa-enabled': 'mfa_enabled',
  'mfa-disabled': 'mfa_disabled',
  'recovery-code-used': 'recovery_code_used',
  'identity-linked': 'identity_linked',
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
  'email-change': {
    servicePath: '/api/v1/users/me/email/confirm',
    subject: 'Confirm your new email address for {{appName}}',
  },
  // The code stays out of the subject: lock screens and mail lists show subjects to anyone near.
  'email-code': {
    servicePath: '/api/v1/auth/email-code/verify',
    subject: 'Your sign-in code for {{appName}}',
  },
};

const CODE_SUBJECTS: Record<CodeKind, string> = {
  'reauthentication-code': 'Your code to confirm it is you on {{appName}}',
};

const NOTICE_SUBJECTS: Record<NoticeKind, string> = {
  'password-changed': 'Your {{appName}} password was changed',
  'email-change-requested': 'Someone asked to change the email address of your {{appName}} account',
  'email-changed': 'The email address of your {{appName}} account was changed',
  'registration-attempt': 'Someone tried to sign up for {{appName}} with your email',
  'mfa-enabled': 'Two-step sign-in is now on for your {{appName}} account',
  'mfa-disabled': 'Two-step sign-in was switched off for your {{appName}} account',
  'recovery-code-used': 'A recovery code was used to sign in to your {{appName}} account',
  'identity-linked': 'A sign-in provider was linked to your {{appName}} account',
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

/** What a sign-in code's templates see: the token mail's, and the six digits. */
export type CodeContext = EmailContext & { code: string };

/**
 * What a notice's templates see: when and from where the change was made, and (an email change's
 * undo only) a link and its life; empty strings where a notice has none.
 */
export type NoticeContext = {
  appName: string;
  username: string;
  email: string;
  when: string;
  ip: string;
  newEmail: string;
  providerName: string;
  link: string;
  validFor: string;
};

/** The service's own page for the undo link: the notice goes to an address no app session knows. */
const UNDO_PATH = '/api/v1/users/me/email/undo';

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

  /** To the NEW address: the link confirms it (and proves the inbox is the user's). */
  sendEmailChangeEmail(message: TokenMail): Promise<void> {
    return this.send('email-change', message);
  }

  /** To the account's address: a code that signs in once, and its link that does the same. */
  sendEmailCode(message: CodeMail): Promise<void> {
    return this.send('email-code', message, { code: message.code });
  }

  /** To the account's address: a code that confirms a signed-in session (step-up), no link. */
  sendReauthenticationCode(message: ReauthenticationCodeMail): Promise<void> {
    const context: CodeContext = {
      appName: this.app.appName,
      username: message.username,
      email: message.to,
      link: '',
      validFor: lifetimeInWords(message.ttl),
      code: message.code,
    };
    const kind: CodeKind = 'reauthentication-code';
    return this.deliver(kind, message.to, CODE_SUBJECTS[kind], context);
  }

  sendPasswordChangedNotice(message: NoticeMail): Promise<void> {
    return this.sendNotice('password-changed', message);
  }

  /** To the OLD address, when a link to a new one has been sent: nothing has changed yet. */
  sendEmailChangeRequestedNotice(message: NoticeMail): Promise<void> {
    return this.sendNotice('email-change-requested', message);
  }

  /** To the OLD address, once the change is made, with the link that undoes it. */
  sendEmailChangedNotice(message: NoticeMail): Promise<void> {
    return this.sendNotice('email-changed', message);
  }

  /**
   * To an account's address, when a registration with it was answered as if it were new
   * (ACCOUNT_ENUMERATION_PROTECTION). Nothing the registrant typed goes into it.
   */
  sendRegistrationAttemptNotice(message: NoticeMail): Promise<void> {
    return this.sendNotice('registration-attempt', message);
  }

  sendMfaNotice(kind: MfaNotice, message: NoticeMail): Promise<void> {
    return this.sendNotice(kind, message);
  }

  /** To the account's address, once a provider's identity is linked to it. */
  sendIdentityLinkedNotice(message: NoticeMail & { providerName: string }): Promise<void> {
    return this.sendNotice('identity-linked', message);
  }

  private sendNotice(kind: NoticeKind, message: NoticeMail): Promise<void> {
    const context: NoticeContext = {
      appName: this.app.appName,
      username: message.username,
      email: message.to,
      // Minutes and the zone spelled out: read by a person, possibly in another time zone.
      when: `${message.at.toISOString().slice(0, 16).replace('T', ' ')} UTC`,
      ip: message.ip ?? 'unknown',
      newEmail: message.newEmail ?? '',
      providerName: message.providerName ?? '',
      link: message.undo ? this.undoLink(message.undo.token) : '',
      validFor: message.undo ? lifetimeInWords(message.undo.ttl) : '',
    };
    return this.deliver(kind, message.to, NOTICE_SUBJECTS[kind], context);
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

  private undoLink(token: string): string {
    const url = new URL(`${this.app.publicUrl}${UNDO_PATH}`);
    url.searchParams.set('token', token);
    return url.toString();
  }

  private async send(kind: Kind, message: TokenMail, extra: { code?: string } = {}): Promise<void> {
    const context: EmailContext = {
      ...extra,
      appName: appNameFrom(message.applicationUrl, this.app.appName),
      username: message.username,
      email: message.to,
      link: this.link(kind, message.token, message.applicationUrl),
      validFor: lifetimeInWords(message.ttl),
    };
    await this.deliver(kind, message.to, KINDS[kind].subject, context);
  }

  private async deliver(
    kind: Kind | CodeKind | NoticeKind,
    to: string,
    subject: string,
    context: EmailContext | CodeContext | NoticeContext,
  ): Promise<void> {
    try {
      await this.mailer.sendMail({
        // One recipient object: an address is never parsed as a list.
        to: { name: '', address: to },
        subject,
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

/**
 * "10 minutes", "1 hour and 30 minutes": rounded down, never up, so a reader who trusts the mail
 * is never turned away by a link or code that has died before the time it stated.
 */
function lifetimeInWords(seconds: number): string {
  const count = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`;
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  const parts = [
    ...(hours > 0 ? [count(hours, 'hour')] : []),
    ...(minutes > 0 ? [count(minutes, 'minute')] : []),
  ];
  return parts.length > 0 ? parts.join(' and ') : count(Math.floor(seconds), 'second');
}
