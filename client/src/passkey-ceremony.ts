// The browser's half of a passkey ceremony, through @simplewebauthn/browser: the service's options
// handed to the authenticator, its answer returned as the JSON the service takes.
import {
  WebAuthnError,
  browserSupportsWebAuthn,
  browserSupportsWebAuthnAutofill,
  startAuthentication,
  startRegistration,
  type AuthenticationResponseJSON,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/browser';
import { AuthError } from './auth-error.js';

export { browserSupportsWebAuthn, browserSupportsWebAuthnAutofill };

/** Asks the authenticator for a new passkey (the browser shows its own prompt). */
export function createPasskey(
  options: PublicKeyCredentialCreationOptionsJSON,
): Promise<RegistrationResponseJSON> {
  return ceremony(() => startRegistration({ optionsJSON: options }));
}

/**
 * Asks the authenticator to sign the challenge. `autofill`: conditional UI, the passkeys offered
 * in the autofill of an input with `autocomplete="username webauthn"`, waiting until one is
 * picked (a later ceremony cancels it).
 */
export function usePasskey(
  options: PublicKeyCredentialRequestOptionsJSON,
  autofill = false,
): Promise<AuthenticationResponseJSON> {
  return ceremony(() =>
    startAuthentication({ optionsJSON: options, useBrowserAutofill: autofill }),
  );
}

/**
 * What the browser refused, as an AuthError: `PASSKEY_CANCELLED` when the person dismissed the
 * prompt or let it time out (or another ceremony replaced it); `PASSKEY_FAILED` when it could
 * not run at all (no WebAuthn, a page outside the relying party's domain, an authenticator that
 * holds this account's passkey already).
 */
async function ceremony<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    const name = (error as { name?: unknown } | null)?.name;
    const code = error instanceof WebAuthnError ? error.code : undefined;
    const cancelled =
      name === 'NotAllowedError' || name === 'AbortError' || code === 'ERROR_CEREMONY_ABORTED';
    const message = error instanceof Error ? error.message : 'The passkey prompt failed';
    throw new AuthError(
      cancelled ? 'PASSKEY_CANCELLED' : 'PASSKEY_FAILED',
      message,
      0,
      undefined,
      [],
      {
        cause: error,
      },
    );
  }
}
