// What the app tells people about a failed call: one table of plain words, by error code and by
// field. The service's own `message` and its validators' text are for developers and logs: the
// page never shows them, so wording here can change without touching the service.
import { AuthError } from './sdk/index.js';

/** The password rules, shown under every new-password field before anything is sent. */
export const PASSWORD_RULES =
  'At least 6 characters. Not your email address or username, and not a common password.';

/**
 * What each field asks for, said when the service refused what was typed there. `*` holds the
 * words of every task; a task (a form's `data-task`) may say it its own way.
 */
const FIELD_WORDS = {
  '*': {
    email: 'Enter an email address, like name@example.com.',
    newEmail: 'Enter the new email address, like name@example.com.',
    username: 'Use 3 to 32 letters, digits, dots, underscores or hyphens.',
    // Its rules stand under the field already.
    password: 'Choose another password: this one does not meet the rules below.',
    newPassword: 'Choose another password: this one does not meet the rules below.',
    currentPassword: 'Enter your current password.',
    name: 'Use at most 100 characters, on one line.',
    picture: 'Enter an https:// address of a picture, or leave it empty.',
    code: 'Enter the 6 digits, without letters.',
    recovery_code: 'Enter one of your recovery codes, as it was shown.',
  },
  login: { password: 'Enter your password.' },
  'email-change': { password: 'Enter your current password.' },
  delete: { password: 'Enter your current password.' },
  reauth: {
    password: 'Enter your password.',
    email_code: 'Enter the 6 digits from the email.',
  },
  'totp-disable': { password: 'Enter your current password.' },
  passkey: { name: 'Enter a name for the passkey: 1 to 64 characters, on one line.' },
  'org-create': { name: 'Enter a name for the organization: 1 to 100 characters.' },
};

/** Codes that are about one field: the words beside it, by task where they differ. */
const CODE_FIELD_WORDS = {
  INVALID_PASSWORD: {
    currentPassword: 'That is not your current password.',
    password: 'That is not your current password.',
  },
  INVALID_MFA_CODE: {
    code: 'That code is wrong or was already used. Enter the one your app shows now.',
    recovery_code: 'That recovery code is wrong or was already used. Try another one.',
    email_code: 'That code is wrong, expired or already used. Check the latest email.',
  },
  // 409: the address or the name belongs to another account.
  REGISTRATION_FAILED: {
    email: 'An account with this email already exists. Log in, or reset its password.',
    newEmail: 'Another account uses this address.',
    username: 'This username is taken: choose another one.',
  },
};

/**
 * A field the service refuses for more than one reason, the reason told only by its detail's
 * text (never shown): recognised here, so the words say which.
 */
const DETAIL_WORDS = [
  {
    field: 'newEmail',
    says: /differ from the current address/,
    words: 'This is already your email address: enter the new one.',
  },
];

/** Per code, the sentence for the form; by task where the same code means something else. */
const CODE_WORDS = {
  NETWORK_ERROR: 'The service cannot be reached. Check your connection and try again.',
  UNEXPECTED_RESPONSE: 'The service cannot be reached. Check your connection and try again.',
  LOGIN_FAILED: {
    '*': 'Wrong email or password.',
    'email-code':
      'That code is wrong, expired or already used. Check the email, or ask for a new code.',
    'email-code-link':
      'This sign-in link has expired or was already used. Ask for a new code below.',
  },
  INVALID_TOKEN: {
    '*': 'Your session has ended. Please log in again.',
    verify:
      'This verification link has expired or was already used. If you verified your email with it, just log in; if not, ask for a new link below.',
    reset: 'This reset link has expired or was already used. Ask for a new one below.',
    'confirm-email': 'This confirmation link has expired or was already used.',
    'second-step': 'This sign-in attempt has expired. Log in again.',
    invitation: 'This invitation link does not work. Ask whoever invited you for a new one.',
  },
  INVALID_PASSWORD: 'That is not your current password.',
  INVALID_MFA_CODE: 'That code is wrong or was already used.',
  PASSKEY_CANCELLED: 'The passkey prompt was closed before it finished: nothing changed.',
  PASSKEY_FAILED: 'This browser or device could not use a passkey here.',
  INVALID_PASSKEY: {
    '*': 'That passkey was not accepted. Try again, or sign in with your password.',
    passkey: 'That passkey was not accepted. Try again.',
  },
  PASSKEY_NOT_FOUND: 'That passkey no longer exists: the list is up to date now.',
  LAST_SIGN_IN_METHOD: 'It is the last way into your account: add another one before removing it.',
  REAUTHENTICATION_REQUIRED: 'You signed in a while ago: confirm it’s you, then try again.',
  MFA_ENROLMENT_REQUIRED:
    'Your account must use two-step sign-in: switch it on under “Two-step sign-in” first.',
  SECOND_FACTOR_REQUIRED:
    'Your account must use two-step sign-in: confirm it’s you with your authenticator app or your passkey.',
  EMAIL_ALREADY_VERIFIED: {
    '*': 'Your email address is already verified.',
    resend:
      'No account waits for verification at this address: it is verified already (log in), or no account uses it (create one).',
  },
  USER_NOT_FOUND: 'No account uses this email address. Check it, or create an account.',
  ACCOUNT_DISABLED: 'This account has been disabled. Contact the people who run this site.',
  // Named by ssoRequiredWords where the app can tell the provider (the address was typed).
  SSO_REQUIRED: {
    '*': 'Your organisation signs you in with its own sign-in: use its button below.',
    passkey: 'Your organisation signs you in with its own sign-in only: no passkey can be added.',
    password: 'Your organisation signs you in with its own sign-in only: there is no password.',
    reset: 'Your organisation signs you in with its own sign-in only: there is no password.',
    'email-change': 'Your organisation signs you in with its own sign-in: keep its address.',
  },
  SSO_NOT_CONFIGURED: {
    '*': 'No organisation sign-in is set up for this address.',
    'work-email':
      'No organisation sign-in is set up for this address. Log in with your password, or another way.',
  },
  ACCOUNT_EXISTS: {
    '*': 'An account with this email already exists. Sign in to it, then link the provider from your account page.',
    link: 'That provider account is linked to another account already, or yours already has one from this provider: nothing was linked.',
  },
  PROVIDER_ERROR: {
    '*': 'Signing in with the provider did not work. Try again.',
    'step-up': 'Signing in again with the provider did not work: nothing changed. Try again.',
  },
  IDENTITY_NOT_FOUND: {
    '*': 'That provider is no longer linked: the list is up to date now.',
    'step-up':
      'That is not the provider account linked to yours: nothing changed. Sign in there with the linked one.',
  },
  SESSION_NOT_FOUND: 'That session has already ended.',
  ORGANIZATION_EXISTS: 'Another organization has this name already: choose another one.',
  ORGANIZATION_NOT_FOUND:
    'That organization is gone, or you are no longer one of its members: the list is up to date now.',
  LAST_OWNER: 'An organization needs an owner: make another member owner first.',
  ALREADY_MEMBER: 'Someone with this email address is a member already.',
  INVITATION_EMAIL_MISMATCH:
    'This invitation is for another email address, or yours is not verified yet. Sign in with the invited address (verified), then open the link again.',
  NOT_FOUND: {
    '*': 'This service does not offer that.',
    'email-code': 'Signing in with a code by email is switched off on this service.',
  },
  FORBIDDEN: 'Your account is not allowed to do this.',
  FORBIDDEN_ORIGIN: 'This page is not allowed to talk to the service. Its address is not listed.',
  EMAIL_SERVICE_ERROR: 'The email could not be sent just now. Try again in a few minutes.',
  REGISTRATION_FAILED: 'Please correct the fields marked.',
  VALIDATION_ERROR: 'Please correct the fields marked.',
};

/**
 * An emailed link the service refused, by task and by why (`error.linkRefusal`: the token's
 * `reason` in the service's details). Without a reason (a token it never issued, or purged long
 * after it ended), CODE_WORDS says it for every case.
 */
const LINK_WORDS = {
  // A verification link is never replaced (an older one keeps working), and a used one has
  // verified the address, which the service says instead.
  verify: {
    expired: 'This verification link has expired. Ask for a new one below.',
    used: 'This verification link no longer works. Ask for a new one below.',
    verified: 'Your email address is already verified. You can log in.',
  },
  reset: {
    expired: 'This reset link has expired. Ask for a new one below.',
    replaced:
      'A newer reset link was sent. Use the one in the latest email, or ask for another below.',
    used: 'This reset link was already used, or your account changed since. If your password did not change with it, ask for a new link below.',
  },
  'confirm-email': {
    expired:
      'This confirmation link has expired: your email address did not change with it. Ask for the change again.',
    replaced:
      'You asked for another change since: use the link in the latest email. Your email address did not change with this one.',
    used: 'This confirmation link was already used, or a later change to your account cancelled it.',
  },
  invitation: {
    used: 'This invitation was already accepted.',
    withdrawn: 'This invitation was withdrawn. Ask whoever invited you for a new one.',
    expired: 'This invitation has expired. Ask whoever invited you for a new one.',
  },
};

/**
 * SSO_REQUIRED where the provider is known (the typed address's, from POST /auth/sso/start): its
 * button comes right below these words.
 */
export function ssoRequiredWords(providerName) {
  return `Your organisation signs you in with ${providerName}: use its button below.`;
}

/** "in 42 seconds", "in 3 minutes": the wait a 429 or 503 named. */
export function waitText(seconds) {
  if (seconds <= 90) return `in ${seconds} second${seconds === 1 ? '' : 's'}`;
  const minutes = Math.ceil(seconds / 60);
  return `in ${minutes} minute${minutes === 1 ? '' : 's'}`;
}

/** Errors that say nothing about the user's input: the service or the network is at fault. */
export function isPassing(error) {
  return (
    error instanceof AuthError &&
    (error.code === 'NETWORK_ERROR' ||
      error.code === 'UNEXPECTED_RESPONSE' ||
      error.code === 'RATE_LIMITED' ||
      error.status >= 500)
  );
}

const pick = (entry, task) =>
  typeof entry === 'string' ? entry : (entry?.[task] ?? entry?.['*'] ?? undefined);

/**
 * The sentence for an error. `task` names what was being done, for the codes whose meaning
 * depends on it (an invalid token in a link is not an expired session).
 */
export function describe(error, task) {
  if (!(error instanceof AuthError)) return 'Something went wrong. Please try again.';
  if (error.code === 'RATE_LIMITED') {
    return error.retryAfter
      ? `Too many attempts. Try again ${waitText(error.retryAfter)}.`
      : 'Too many attempts. Please wait a little and try again.';
  }
  if (error.status >= 500 && error.code !== 'EMAIL_SERVICE_ERROR') {
    const wait = error.retryAfter
      ? ` Try again ${waitText(error.retryAfter)}.`
      : ' Please try again in a moment.';
    return `The service is having trouble.${wait}`;
  }
  const link = error.code === 'INVALID_TOKEN' ? LINK_WORDS[task]?.[error.linkRefusal] : undefined;
  return link ?? pick(CODE_WORDS[error.code], task) ?? 'That did not work. Please try again.';
}

/**
 * The words beside each field of `fields` (the form's inputs) that the error is about: its
 * details (each field once, whatever the service listed), or the field its code is about.
 * Returns `{ [field]: words }`; empty when the error is about no field of this form.
 */
export function fieldWords(error, fields, task) {
  if (!(error instanceof AuthError)) return {};
  const words = {};
  const conflict = error.code === 'REGISTRATION_FAILED' && error.status === 409;
  for (const { field, message } of error.details ?? []) {
    if (!fields.includes(field) || words[field]) continue;
    const known = DETAIL_WORDS.find((entry) => entry.field === field && entry.says.test(message));
    words[field] = conflict
      ? (CODE_FIELD_WORDS.REGISTRATION_FAILED[field] ?? FIELD_WORDS['*'][field])
      : (known?.words ??
        FIELD_WORDS[task]?.[field] ??
        FIELD_WORDS['*'][field] ??
        'Check this field.');
  }
  const byCode = CODE_FIELD_WORDS[error.code];
  if (byCode && !conflict && Object.keys(words).length === 0) {
    const field = fields.find((name) => byCode[name]);
    if (field) words[field] = byCode[field];
  }
  return words;
}
