// What the app tells the user about a failed call: plain words, never a raw error code.
import { AuthError } from './sdk/index.js';

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

/**
 * The sentence for an error. `context` names what was being done, for the codes whose meaning
 * depends on it (an invalid token in a link is not an expired session).
 */
export function describe(error, context) {
  if (!(error instanceof AuthError)) return 'Something went wrong. Please try again.';
  switch (error.code) {
    case 'NETWORK_ERROR':
    case 'UNEXPECTED_RESPONSE':
      return 'The service cannot be reached. Check your connection and try again.';
    case 'RATE_LIMITED':
      return error.retryAfter
        ? `Too many attempts. Try again ${waitText(error.retryAfter)}.`
        : 'Too many attempts. Please wait a little and try again.';
    case 'LOGIN_FAILED':
      if (context === 'email-code')
        return 'That code is wrong, expired or already used. Check the email, or ask for a new code.';
      if (context === 'email-code-link')
        return 'This sign-in link is invalid, expired or already used. Ask for a new code below.';
      return 'Wrong email or password.';
    case 'INVALID_TOKEN':
      if (context === 'verify')
        return 'This verification link is invalid or has expired. Ask for a new one below.';
      if (context === 'reset')
        return 'This reset link is invalid or has expired. Ask for a new one below.';
      if (context === 'second-step' || context === 'recovery-code')
        return 'This sign-in attempt has expired. Log in again with your email and password.';
      return 'Your session has ended. Please log in again.';
    case 'INVALID_PASSWORD':
      return 'The current password is wrong.';
    case 'INVALID_MFA_CODE':
      if (context === 'recovery-code')
        return 'That recovery code is wrong or has been used. Check it, or try another one.';
      return 'That code is wrong or has been used. Enter the code your authenticator app shows now.';
    case 'PASSKEY_CANCELLED':
      return 'The passkey prompt was closed before it finished: nothing changed.';
    case 'PASSKEY_FAILED':
      return 'This browser or device could not use a passkey here.';
    case 'INVALID_PASSKEY':
      if (context === 'passkey') return 'That passkey was not accepted. Try again.';
      return 'That passkey was not accepted. Try again, or sign in with your password.';
    case 'PASSKEY_NOT_FOUND':
      return 'That passkey no longer exists: the list is up to date now.';
    case 'LAST_SIGN_IN_METHOD':
      return 'It is the last way into your account: add another one before removing it.';
    case 'REAUTHENTICATION_REQUIRED':
      return 'You signed in a while ago: confirm it’s you, then try again.';
    case 'MFA_ENROLMENT_REQUIRED':
      return 'Your account must use two-step sign-in: switch it on under “Two-step sign-in” first.';
    case 'EMAIL_ALREADY_VERIFIED':
      return 'This email is already verified: you can log in.';
    case 'VALIDATION_ERROR':
    case 'REGISTRATION_FAILED':
      return error.details.length > 0 ? 'Please correct the fields marked below.' : error.message;
    default:
      if (error.status >= 500) {
        const wait = error.retryAfter
          ? ` Try again ${waitText(error.retryAfter)}.`
          : ' Please try again in a moment.';
        return `The service is having trouble.${wait}`;
      }
      return error.message;
  }
}
