/** The service's error codes (`error` in a failure envelope). Branch on these, never on `message`. */
export const SERVICE_ERROR_CODES = [
  'LOGIN_FAILED',
  'REGISTRATION_FAILED',
  'INVALID_TOKEN',
  'USER_NOT_FOUND',
  'EMAIL_ALREADY_VERIFIED',
  'EMAIL_NOT_FOUND',
  'EMAIL_SERVICE_ERROR',
  'RATE_LIMITED',
  'VALIDATION_ERROR',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'FORBIDDEN_ORIGIN',
  'FORBIDDEN',
  'INVALID_PASSWORD',
  'ACCOUNT_DISABLED',
  'CANNOT_MODIFY_SELF',
  'NOT_FOUND',
  'INTERNAL_ERROR',
  'SERVICE_UNAVAILABLE',
] as const;

export type ServiceErrorCode = (typeof SERVICE_ERROR_CODES)[number];

/**
 * Raised by the SDK itself, never by the service: the request did not reach it or its answer was
 * not the envelope (a proxy's error page, a cut connection).
 */
export type ClientErrorCode = 'NETWORK_ERROR' | 'UNEXPECTED_RESPONSE';

export type ErrorCode = ServiceErrorCode | ClientErrorCode;

/** A user as the service returns it in `data.user`. */
export interface User {
  id: string;
  email: string;
  username: string;
  role: string;
  email_verified: boolean;
  /** ISO 8601. */
  created_at: string;
}

export interface VerifiedUser extends User {
  /** ISO 8601. */
  verified_at: string | null;
}

/** A success without data (emails sent, logout, password set). */
export interface MessageEnvelope {
  success: true;
  message: string;
}

export interface DataEnvelope<T> extends MessageEnvelope {
  data: T;
}

export interface FailureEnvelope {
  success: false;
  message: string;
  error: ServiceErrorCode;
}

export interface RegisterInput {
  email: string;
  password: string;
  username: string;
  emailConfig?: { applicationUrl?: string; locale?: string };
}

export interface LoginInput {
  email: string;
  password: string;
}

export interface VerifyEmailInput {
  token: string;
  applicationUrl?: string;
}

export interface EmailLinkInput {
  email: string;
  /** Where the emailed link points; its origin must be one of the service's `APP_ORIGINS`. */
  applicationUrl?: string;
}

export interface ResetPasswordInput {
  token: string;
  newPassword: string;
}

/** Why the session ended, as told to `onSessionEnded` listeners. */
export type SessionEndReason =
  /** `logout()` in this tab or another tab of the app. */
  | 'logout'
  /** The refresh token was refused: expired, revoked (logout elsewhere, password reset) or reused. */
  | 'refresh-failed'
  /** `resetPassword()` succeeded: the service ends every session of the user. */
  | 'password-reset';
