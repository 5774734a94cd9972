// The password as a way in: sign-up, sign-in, the reset by email, the change. Reached as
// `auth.password` once `password()` is among the client's plugins.
import type { AuthClientPlugin, SessionEngine } from './plugin.js';
import { isChallengeEnvelope, isTokenResponse } from './sign-in-result.js';
import type {
  EmailLinkInput,
  LoginResult,
  MessageEnvelope,
  SignedInResult,
  TokenLoginResult,
  UserResult,
} from './types.js';

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

export interface ChangePasswordInput {
  currentPassword: string;
  newPassword: string;
}

/** `POST /auth/reset-password` with `{ email }` (the contract's variant A). */
export interface PasswordResetRequestInput {
  email: string;
}

export interface ResetPasswordInput {
  token: string;
  newPassword: string;
}

/** `createAuthClient({ baseUrl, plugins: [password()] })`, then `auth.password.signIn(…)`. */
export const password = (): AuthClientPlugin<'password', PasswordClient> => ({
  id: 'password',
  create: (engine) => new PasswordClient(engine),
});

export class PasswordClient {
  constructor(private readonly engine: SessionEngine) {}

  /** Makes the account and mails the link that verifies its address. */
  register(input: RegisterInput): Promise<UserResult> {
    return this.engine.call<UserResult>('POST', '/auth/register', input);
  }

  /**
   * Signs in, or, for an account with a second factor, answers the second step to take first
   * (no session yet: `isSecondFactorRequired(result)`, then `auth.secondFactor.verify`).
   */
  signIn(input: LoginInput): Promise<LoginResult> {
    return this.engine.signIn<LoginResult>('/auth/login', input);
  }

  /**
   * For non-browser clients (a CLI, a server): the tokens in the answer instead of cookies
   * (`X-Token-Delivery: body`). Send the access token as `Authorization: Bearer`; keep the
   * refresh token for `auth.refreshForTokens`. Leaves this client's cookie session alone. In a
   * browser the service refuses it (400 VALIDATION_ERROR): a page never reads a refresh token.
   * For an account with a second factor it answers the second step instead
   * (`isSecondFactorRequired`), for `auth.secondFactor.verifyForTokens`.
   */
  signInForTokens(input: LoginInput): Promise<TokenLoginResult> {
    return this.engine.requestTokens<TokenLoginResult>(
      '/auth/login',
      input,
      (body) => isTokenResponse(body) || isChallengeEnvelope(body),
    );
  }

  /**
   * Confirmed by the current password (`403 INVALID_PASSWORD` otherwise). The service ends every
   * session of the user and answers this browser with a new one (new cookies): the other tabs of
   * the app go on with it, every other device is signed out.
   */
  change(input: ChangePasswordInput): Promise<SignedInResult> {
    return this.engine.replaceSession('POST', '/users/me/password', input);
  }

  /** Mails a reset link to `applicationUrl?token=…` (an APP_ORIGINS page). */
  forgot(input: EmailLinkInput): Promise<MessageEnvelope> {
    return this.engine.call('POST', '/auth/forgot-password', input);
  }

  /**
   * The contract's `POST /auth/reset-password` with `{ email }`: the reset mail, as `forgot`
   * sends it (which also takes an `applicationUrl`).
   */
  requestReset(input: PasswordResetRequestInput): Promise<MessageEnvelope> {
    return this.engine.call('POST', '/auth/reset-password', { email: input.email });
  }

  /**
   * Sets a new password from a reset token. The service ends every session of the token's user,
   * who need not be the one signed in here: ask `auth.status()` afterwards to learn whether this
   * browser's session was among them.
   */
  reset(input: ResetPasswordInput): Promise<MessageEnvelope> {
    return this.engine.call('POST', '/auth/reset-password', {
      token: input.token,
      newPassword: input.newPassword,
    });
  }
}
