import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { MetricsConfig } from '../config/config.sections';

const MISNAMED_DEFAULT_GAUGES = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
];

const LOGIN_OUTCOMES = ['ok', 'failed'] as const;
const REFRESH_OUTCOMES = ['ok', 'invalid', 'reuse_detected'] as const;
const REVOCATION_REASONS = [
  'logout',
  'password_reset',
  'refresh_reuse',
  'session_ended',
  'admin',
  'account_disabled',
  'account_deleted',
] as const;
const EMAIL_KINDS = [
  'verification',
  'password_reset',
  'email_change',
  'email_change_requested',
  'password_changed',
  'email_changed',
  'registration_attempt',
  'mfa_enabled',
  'mfa_disabled',
  'recovery_code_used',
  'email_code',
  'identity_linked',
  'reauthentication_code',
  'invitation',
] as const;
/** `capped`: not sent, the address has had MAIL_RECIPIENT_LIMIT mails of its kind lately. */
const EMAIL_OUTCOMES = ['sent', 'failed', 'capped'] as const;
const SECOND_FACTOR_METHODS = ['totp', 'recovery_code'] as const;
const SECOND_FACTOR_OUTCOMES = ['ok', 'failed'] as const;
const PASSKEY_CEREMONIES = [
  'registration',
  'sign_in',
  'second_factor',
  'reauthentication',
] as const;
/** What a sign-in by email sent back: the six digits, or the mail's link. */
const EMAIL_CODE_PROOFS = ['code', 'link'] as const;
/** `failed`: a wrong, used, expired or dead code or link (a wrong code is counted against it). */
const EMAIL_CODE_OUTCOMES = ['ok', 'failed'] as const;
/** `counter_rejected`: a valid signature whose counter went back (a cloned authenticator?). */
const PASSKEY_OUTCOMES = ['ok', 'failed', 'counter_rejected'] as const;

/**
 * A round trip through an identity provider: `signed_in`, `mfa_required` (its second step is
 * pending), `linked`, `reauthenticated` (a step-up), `account_exists` (not linked silently),
 * `provider_error` (anything else, a step-up by an identity of another account included).
 */
const FEDERATION_OUTCOMES = [
  'signed_in',
  'mfa_required',
  'linked',
  'reauthenticated',
  'account_exists',
  'provider_error',
] as const;

export type FederationOutcome = (typeof FEDERATION_OUTCOMES)[number];
export type RefreshOutcome = (typeof REFRESH_OUTCOMES)[number];
export type RevocationReason = (typeof REVOCATION_REASONS)[number];
export type EmailKind = (typeof EMAIL_KINDS)[number];
export type EmailOutcome = (typeof EMAIL_OUTCOMES)[number];
export type PasskeyCeremony = (typeof PASSKEY_CEREMONIES)[number];
export type PasskeyOutcome = (typeof PASSKEY_OUTCOMES)[number];
export type EmailCodeProof = (typeof EMAIL_CODE_PROOFS)[number];
export type EmailCodeOutcome = (typeof EMAIL_CODE_OUTCOMES)[number];

/**
 * Prometheus counters of what the service does, by outcome, and request latency per route. A
 * registry of its own (not prom-client's global one), so two apps in one process (tests, an
 * embedding app) never share or clash. Counting costs nothing worth measuring; the process
 * metrics and the latency hook are set up only when `/metrics` is on (METRICS_TOKEN).
 *
 * Every series of a known label value exists from the start at 0: an alert on
 * `increase(…[5m]) > 0` sees the first event after a restart, which a series born at 1 hides.
 */
@Injectable()
export class Metrics implements OnApplicationShutdown {
  readonly registry = new Registry();
  readonly enabled: boolean;
  private readonly logins = this.counter('auth_logins_total', 'Logins, by outcome', {
    outcome: LOGIN_OUTCOMES,
  });
  private readonly registrations = this.counter('auth_registrations_total', 'Accounts created');
  private readonly refreshes = this.counter(
    'auth_refreshes_total',
    'Refresh-token exchanges, by outcome (reuse_detected: a retired token came back, the family was revoked)',
    { outcome: REFRESH_OUTCOMES },
  );
  private readonly revocations = this.counter(
    'auth_revocations_total',
    'Sessions ended by the service, by reason',
    { reason: REVOCATION_REASONS },
  );
  private readonly rateLimited = this.counter(
    'auth_rate_limited_total',
    'Requests refused with 429 RATE_LIMITED',
  );
  private readonly secondFactors = this.counter(
    'auth_second_factor_total',
    'Second-factor codes checked (login, step-up, switching it off), by method and outcome',
    { method: SECOND_FACTOR_METHODS, outcome: SECOND_FACTOR_OUTCOMES },
  );
  private readonly passkeyCeremonies = this.counter(
    'auth_passkey_ceremonies_total',
    'Passkey ceremonies completed (registration, sign-in, second factor), by outcome',
    { ceremony: PASSKEY_CEREMONIES, outcome: PASSKEY_OUTCOMES },
  );
  private readonly emailCodes = this.counter(
    'auth_email_code_sign_ins_total',
    'Codes and links of sign-in by email checked, by what came back and outcome (ok: accepted)',
    { proof: EMAIL_CODE_PROOFS, outcome: EMAIL_CODE_OUTCOMES },
  );
  private readonly federation = this.counter(
    'auth_federation_total',
    'Round trips through an identity provider (sign-in or linking), by outcome',
    { outcome: FEDERATION_OUTCOMES },
  );
  private readonly emails = this.counter('auth_emails_total', 'Emails, by kind and outcome', {
    kind: EMAIL_KINDS,
    outcome: EMAIL_OUTCOMES,
  });
  readonly requestDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time to answer a request, by route pattern',
    labelNames: ['method', 'route', 'status_code'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });

  constructor(config: MetricsConfig) {
    this.enabled = config.token !== undefined;
    if (this.enabled) {
      collectDefaultMetrics({ register: this.registry });
      // prom-client names these gauges like counters, which Prometheus tooling refuses
      // (promtool check metrics); each is the sum of its per-type series, which stay.
      for (const name of MISNAMED_DEFAULT_GAUGES) this.registry.removeSingleMetric(name);
    }
  }

  login(outcome: 'ok' | 'failed'): void {
    this.logins.inc({ outcome });
  }

  federated(outcome: FederationOutcome): void {
    this.federation.inc({ outcome });
  }

  registered(): void {
    this.registrations.inc();
  }

  refreshed(outcome: RefreshOutcome): void {
    this.refreshes.inc({ outcome });
  }

  revoked(reason: RevocationReason): void {
    this.revocations.inc({ reason });
  }

  refusedByRateLimit(): void {
    this.rateLimited.inc();
  }

  secondFactor(
    method: (typeof SECOND_FACTOR_METHODS)[number],
    outcome: (typeof SECOND_FACTOR_OUTCOMES)[number],
  ): void {
    this.secondFactors.inc({ method, outcome });
  }

  passkey(ceremony: PasskeyCeremony, outcome: PasskeyOutcome): void {
    this.passkeyCeremonies.inc({ ceremony, outcome });
  }

  emailCode(proof: EmailCodeProof, outcome: EmailCodeOutcome): void {
    this.emailCodes.inc({ proof, outcome });
  }

  email(kind: EmailKind, outcome: EmailOutcome): void {
    this.emails.inc({ kind, outcome });
  }

  onApplicationShutdown(): void {
    this.registry.clear();
  }

  /** A counter with a series at 0 for every combination of its labels' known values. */
  private counter(
    name: string,
    help: string,
    labels: Record<string, readonly string[]> = {},
  ): Counter {
    const counter = new Counter({
      name,
      help,
      labelNames: Object.keys(labels),
      registers: [this.registry],
    });
    const combinations = Object.entries(labels).reduce<Array<Record<string, string>>>(
      (partial, [label, values]) =>
        partial.flatMap((combination) =>
          values.map((value) => ({ ...combination, [label]: value })),
        ),
      [{}],
    );
    for (const combination of combinations) counter.inc(combination, 0);
    return counter;
  }
}
