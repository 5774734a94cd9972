/**
 * The one catalogue of error codes: each code's HTTP status and the message a client sees when the
 * code is raised without a more specific one. Clients branch on `error`, never on `message`.
 */
export const ERROR_CATALOGUE = {
  LOGIN_FAILED: { status: 401, message: 'Invalid email or password' },
  REGISTRATION_FAILED: { status: 409, message: 'An account with this email or username exists' },
  INVALID_TOKEN: { status: 401, message: 'The token is invalid or has expired' },
  USER_NOT_FOUND: { status: 404, message: 'No account exists for this email' },
  EMAIL_ALREADY_VERIFIED: { status: 409, message: 'The email is already verified' },
  EMAIL_NOT_FOUND: { status: 404, message: 'The email address was not found' },
  EMAIL_SERVICE_ERROR: { status: 503, message: 'The email could not be sent, try again later' },
  RATE_LIMITED: { status: 429, message: 'Too many requests, try again later' },
  VALIDATION_ERROR: { status: 400, message: 'The request is invalid' },
  PAYLOAD_TOO_LARGE: { status: 413, message: 'The request body is larger than 5 MB' },
  UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    message: 'The request body must be JSON (Content-Type: application/json)',
  },
  FORBIDDEN_ORIGIN: { status: 403, message: 'Requests from this origin are not allowed' },
  FORBIDDEN: { status: 403, message: 'Your role does not allow this' },
  INVALID_PASSWORD: { status: 403, message: 'The current password is wrong' },
  ACCOUNT_DISABLED: { status: 403, message: 'This account has been disabled' },
  CANNOT_MODIFY_SELF: {
    status: 409,
    message: 'Administrators cannot disable, demote or delete their own account here',
  },
  NOT_FOUND: { status: 404, message: 'Route not found' },
  SESSION_NOT_FOUND: { status: 404, message: 'No such session of yours is active' },
  WEBHOOK_NOT_FOUND: { status: 404, message: 'No such webhook endpoint' },
  INVALID_MFA_CODE: { status: 401, message: 'The code is wrong or was already used' },
  REAUTHENTICATION_REQUIRED: {
    status: 403,
    message: 'Confirm it is you: sign in again with your password or a code',
  },
  MFA_ENROLMENT_REQUIRED: {
    status: 403,
    message: 'Your role requires two-step sign-in: switch it on first',
  },
  // The role's second factor is on, but this session was not signed in (or stepped up) with it.
  SECOND_FACTOR_REQUIRED: {
    status: 403,
    message:
      'Your role requires two-step sign-in: confirm it is you with your authenticator app or a passkey',
  },
  INVALID_PASSKEY: {
    status: 401,
    message: 'The passkey could not be verified: try again, or sign in another way',
  },
  PASSKEY_NOT_FOUND: { status: 404, message: 'No such passkey of yours exists' },
  LAST_SIGN_IN_METHOD: {
    status: 409,
    message: 'This is the last way into your account: add another before removing it',
  },
  // Identity providers: ACCOUNT_EXISTS and PROVIDER_ERROR mostly reach clients in the callback's
  // redirect (`redirect_to?error=CODE`); PROVIDER_ERROR also answers a callback without a flow.
  ACCOUNT_EXISTS: {
    status: 409,
    message: 'An account with this email exists: sign in to it, then link this provider',
  },
  PROVIDER_ERROR: {
    status: 400,
    message: 'Signing in with the identity provider failed or expired: start again',
  },
  PROVIDER_NOT_FOUND: { status: 404, message: 'No such identity provider is configured' },
  IDENTITY_NOT_FOUND: { status: 404, message: 'No identity of yours from this provider is linked' },
  SSO_NOT_CONFIGURED: { status: 404, message: 'No single sign-on is set up for this email domain' },
  SSO_REQUIRED: {
    status: 403,
    message: 'This email domain signs in only with its single sign-on',
  },
  // Blocking hooks (docs/hooks.md): a before_user_created hook said no, with its own message; a
  // hook failed or was late under HOOK_FAILURE=closed.
  REGISTRATION_REJECTED: { status: 403, message: 'This registration was not accepted' },
  HOOK_UNAVAILABLE: {
    status: 503,
    message: 'The service cannot complete this right now, try again later',
  },
  // Organizations: a non-member is told nothing exists, whatever does.
  ORGANIZATION_NOT_FOUND: { status: 404, message: 'No such organization of yours exists' },
  ORGANIZATION_EXISTS: { status: 409, message: 'An organization with this slug exists' },
  LAST_OWNER: {
    status: 409,
    message: 'The organization must keep an owner: make another member owner first',
  },
  ALREADY_MEMBER: { status: 409, message: 'This address belongs to a member already' },
  INVITATION_EMAIL_MISMATCH: {
    status: 403,
    message:
      "The invitation is for another address: sign in with the invited account's verified email",
  },
  INTERNAL_ERROR: { status: 500, message: 'An unexpected error occurred' },
  SERVICE_UNAVAILABLE: {
    status: 503,
    message: 'The service is temporarily unavailable, try again later',
  },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/**
 * `Retry-After` of the 503s a later try can get past: a dependency that is down (the database,
 * the mail server) comes back by itself, and a client (the SDK, a load balancer) waits this long
 * rather than hammer it. A refusal that knows its own wait (the hashing queue) names it instead.
 */
export const RETRY_AFTER_SECONDS: Partial<Record<ErrorCode, number>> = {
  SERVICE_UNAVAILABLE: 5,
  EMAIL_SERVICE_ERROR: 30,
  HOOK_UNAVAILABLE: 5,
};
