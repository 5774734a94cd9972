import { VerifiedUser } from '../users/user.view';

/**
 * What the blocking hooks receive and answer (decisions.md, "Events, webhooks and hooks"), the
 * same for a URL and for a hook a module provides in process.
 */

/** `data` of `before_user_created`: the account about to be made, and the way in making it. */
export interface BeforeUserCreatedData {
  user: { email: string; username: string };
  /** `password` (registration) or `identity_provider` (a provider's first sign-in). */
  method: string;
}

export type BeforeUserCreatedAnswer =
  { decision: 'allow' } | { decision: 'reject'; message?: string };

/** `data` of `custom_access_token`: the user as the profile shows it, and the token's claims. */
export interface CustomAccessTokenData {
  /** As `GET /users/me` shows it, without the profile's sign-in proofs. */
  user: VerifiedUser;
  claims: Readonly<Record<string, unknown>>;
}

export interface CustomAccessTokenAnswer {
  claims: Record<string, unknown>;
}

/**
 * Claims a hook's answer can never set: the registered ones, the service's (decisions.md's
 * list), and `ver` and `role`, which are this service's token version and role claims.
 */
export const RESERVED_CLAIMS: ReadonlySet<string> = new Set([
  'iss',
  'sub',
  'aud',
  'exp',
  'nbf',
  'iat',
  'jti',
  'typ',
  'client_id',
  'sid',
  'amr',
  'auth_time',
  'token_version',
  'ver',
  'role',
  'org_id',
  'org_role',
]);

/** A rejection's message as a client gets it: one line, at most this long. */
const MAX_MESSAGE = 500;

/** A hook's answer that is neither of the shapes it may take: the hook has failed. */
export class HookAnswerError extends Error {}

/** `allow`, or the rejection's message (the catalogue's when the hook gave none). */
export function readDecision(
  answer: unknown,
): { allowed: true } | { allowed: false; message?: string } {
  const body = objectOr(answer);
  if (body?.decision === 'allow') return { allowed: true };
  if (body?.decision !== 'reject') {
    throw new HookAnswerError('answered neither {"decision":"allow"} nor {"decision":"reject"}');
  }
  const message = typeof body.message === 'string' ? body.message.replace(/\s+/g, ' ').trim() : '';
  return { allowed: false, message: message ? message.slice(0, MAX_MESSAGE) : undefined };
}

/** The answer's claims without the reserved ones. */
export function readClaims(answer: unknown): Record<string, unknown> {
  const claims = objectOr(objectOr(answer)?.claims);
  if (!claims) throw new HookAnswerError('answered without a "claims" object');
  const kept: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(claims)) {
    if (!RESERVED_CLAIMS.has(name) && value !== undefined) kept[name] = value;
  }
  return kept;
}

function objectOr(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}
