// Passkeys: signing in with one (alone, or as a login's second step), stepping up with one, and
// the account's own. Reached as `auth.passkeys` once `passkeys()` is among the client's plugins;
// only this part brings the browser's WebAuthn ceremony (@simplewebauthn/browser) into a bundle.
import {
  browserSupportsWebAuthn,
  browserSupportsWebAuthnAutofill,
  createPasskey,
  usePasskey,
} from './passkey-ceremony.js';
import type { AuthClientPlugin, SessionEngine } from './plugin.js';
import type { DataEnvelope, MessageEnvelope, SignedInResult } from './types.js';

/** One of the signed-in user's passkeys (`auth.passkeys.list()`). */
export interface Passkey {
  id: string;
  name: string;
  /** ISO 8601. */
  created_at: string;
  /** ISO 8601; null until it first signs in. */
  last_used_at: string | null;
}

type PasskeyCreation = Parameters<typeof createPasskey>[0];
type PasskeyRequest = Parameters<typeof usePasskey>[0];

/** `createAuthClient({ baseUrl, plugins: [passkeys()] })`, then `auth.passkeys.signIn()`. */
export const passkeys = (): AuthClientPlugin<'passkeys', PasskeysClient> => ({
  id: 'passkeys',
  create: (engine) => new PasskeysClient(engine),
});

export class PasskeysClient {
  constructor(private readonly engine: SessionEngine) {}

  /** Whether this browser can use passkeys at all, and offer them in an input's autofill. */
  async support(): Promise<{ passkeys: boolean; autofill: boolean }> {
    return {
      passkeys: browserSupportsWebAuthn(),
      autofill: await browserSupportsWebAuthnAutofill(),
    };
  }

  /**
   * Signs in with a passkey, no email typed: the browser offers the passkeys it has for this
   * service. `autofill: true` for conditional UI: call it as the sign-in page opens, with an
   * input marked `autocomplete="username webauthn"`; it resolves once a passkey is picked there.
   * Rejects with `PASSKEY_CANCELLED` when the prompt is dismissed, `401 INVALID_PASSKEY` when
   * the service refuses the passkey.
   */
  async signIn(options: { autofill?: boolean } = {}): Promise<SignedInResult> {
    const begun = await this.engine.call<DataEnvelope<{ options: PasskeyRequest }>>(
      'POST',
      '/auth/passkey/options',
    );
    const response = await usePasskey(begun.data.options, options.autofill === true);
    return this.engine.signIn<SignedInResult>('/auth/passkey/verify', { response });
  }

  /**
   * A sign-in's second step answered with a passkey (`methods` listed `passkey`): the challenge
   * the first step answered. Signs in as `auth.secondFactor.verify` does.
   */
  async verifySecondFactor(challenge: string): Promise<SignedInResult> {
    const begun = await this.engine.call<DataEnvelope<{ options: PasskeyRequest }>>(
      'POST',
      '/auth/mfa/passkey/options',
      { challenge },
    );
    const passkey = await usePasskey(begun.data.options);
    return this.engine.signIn<SignedInResult>('/auth/mfa/verify', { challenge, passkey });
  }

  /**
   * Step-up with one of the account's passkeys: the browser's prompt (user verification), then
   * `auth.reauthenticate` with its answer. Rejects with `PASSKEY_CANCELLED` when the prompt is
   * dismissed, `401 INVALID_PASSKEY` when the service refuses it.
   */
  async reauthenticate(): Promise<SignedInResult> {
    const begun = await this.engine.authed<DataEnvelope<{ options: PasskeyRequest }>>(
      'POST',
      '/auth/reauthenticate/passkey/options',
    );
    const passkey = await usePasskey(begun.data.options);
    return this.engine.stepUp({ passkey });
  }

  /**
   * Registers a passkey of this device (or a phone, a security key) for the signed-in user,
   * named as given. Needs a recent sign-in (`403 REAUTHENTICATION_REQUIRED`:
   * `auth.reauthenticate`, then call again). From then on a password login asks for a second
   * step too.
   */
  async register(input: { name?: string } = {}): Promise<DataEnvelope<{ passkey: Passkey }>> {
    const begun = await this.engine.authed<DataEnvelope<{ options: PasskeyCreation }>>(
      'POST',
      '/users/me/passkeys/options',
    );
    const response = await createPasskey(begun.data.options);
    return this.engine.authed('POST', '/users/me/passkeys', { response, name: input.name });
  }

  /** The signed-in user's passkeys, oldest first. */
  list(): Promise<DataEnvelope<{ passkeys: Passkey[] }>> {
    return this.engine.authed('GET', '/users/me/passkeys');
  }

  rename(id: string, name: string): Promise<DataEnvelope<{ passkey: Passkey }>> {
    return this.engine.authed('PATCH', `/users/me/passkeys/${encodeURIComponent(id)}`, { name });
  }

  /** `409 LAST_SIGN_IN_METHOD` when it is the last way into an account without a password. */
  delete(id: string): Promise<MessageEnvelope> {
    return this.engine.authed('DELETE', `/users/me/passkeys/${encodeURIComponent(id)}`);
  }
}
