import { Injectable } from '@nestjs/common';
import {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
  WebAuthnCredential,
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import { WebAuthnConfig } from '../config/config.sections';
import { AuthenticationResponseDto } from './dto/authentication-response.dto';
import { RegistrationResponseDto } from './dto/registration-response.dto';
import { CHALLENGE_TTL_MS } from './webauthn-challenges.service';

/** ES256 and EdDSA first (what platform authenticators make), RS256 for Windows Hello. */
const ALGORITHMS = [-7, -8, -257];

/** Why a ceremony was refused: `counter` only when the signature was good but the counter went back. */
export class CeremonyRefused extends Error {
  constructor(
    readonly reason: 'invalid' | 'counter',
    /** The library's own words, for the operator's log; never for a client. */
    readonly detail: string,
  ) {
    super(`Passkey ceremony refused (${reason}): ${detail}`);
    this.name = 'CeremonyRefused';
  }
}

export interface NewCredential {
  id: string;
  publicKey: WebAuthnCredential['publicKey'];
  counter: number;
  transports: string[];
  deviceType: 'singleDevice' | 'multiDevice';
  backedUp: boolean;
}

export interface Assertion {
  newCounter: number;
  deviceType: 'singleDevice' | 'multiDevice';
  backedUp: boolean;
}

/**
 * The relying party of WEBAUTHN_RP_ID, WEBAUTHN_RP_NAME and WEBAUTHN_ORIGINS, over
 * @simplewebauthn/server: the options a browser is handed and the checks of what it answers. It
 * knows nothing of storage; the challenge is the caller's, already claimed. Every refusal is a
 * CeremonyRefused whatever the library threw, so no library text travels further than a log.
 */
@Injectable()
export class RelyingParty {
  constructor(private readonly config: WebAuthnConfig) {}

  /**
   * A discoverable credential (it signs in without an email typed), attestation `none` (nobody's
   * make of authenticator is checked or kept), the account's passkeys excluded so an
   * authenticator is not registered twice.
   */
  registrationOptions(
    user: { handle: Uint8Array; name: string; displayName: string },
    challenge: string,
    exclude: Array<{ id: string; transports?: string[] }>,
  ): Promise<PublicKeyCredentialCreationOptionsJSON> {
    return generateRegistrationOptions({
      rpName: this.config.rpName,
      rpID: this.config.rpId,
      userID: new Uint8Array(user.handle),
      userName: user.name,
      userDisplayName: user.displayName,
      challenge: bytes(challenge),
      timeout: CHALLENGE_TTL_MS,
      attestationType: 'none',
      excludeCredentials: exclude,
      authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
      supportedAlgorithmIDs: ALGORITHMS,
    });
  }

  /**
   * `allow` is empty for a passwordless sign-in (the authenticator offers the discoverable
   * passkey it holds), the user's passkeys for a second step.
   */
  authenticationOptions(
    challenge: string,
    allow: Array<{ id: string; transports?: string[] }>,
    userVerification: 'required' | 'preferred',
  ): Promise<PublicKeyCredentialRequestOptionsJSON> {
    return generateAuthenticationOptions({
      rpID: this.config.rpId,
      challenge: bytes(challenge),
      timeout: CHALLENGE_TTL_MS,
      allowCredentials: allow,
      userVerification,
    });
  }

  async verifyRegistration(
    response: RegistrationResponseDto,
    challenge: string,
  ): Promise<NewCredential> {
    const verified = await refusing(() =>
      verifyRegistrationResponse({
        // The DTO checked the shape; WebAuthn's enumerations (type, transports) are the library's.
        response: response as RegistrationResponseJSON,
        expectedChallenge: challenge,
        expectedOrigin: [...this.config.origins],
        expectedRPID: this.config.rpId,
        requireUserVerification: false,
        supportedAlgorithmIDs: ALGORITHMS,
      }),
    );
    if (!verified.verified) throw new CeremonyRefused('invalid', 'not verified');
    const { credential, credentialDeviceType, credentialBackedUp } = verified.registrationInfo;
    return {
      id: credential.id,
      publicKey: credential.publicKey,
      counter: credential.counter,
      transports: credential.transports ?? [],
      deviceType: credentialDeviceType,
      backedUp: credentialBackedUp,
    };
  }

  /**
   * Checks signature, origin, RP id, challenge, user presence (and verification when asked) and
   * that the counter moved forward. A refusal whose only fault is the counter (the same answer
   * passes against a counter of 0) is told apart: a cloned authenticator may be in use.
   */
  async verifyAuthentication(
    response: AuthenticationResponseDto,
    challenge: string,
    credential: WebAuthnCredential,
    requireUserVerification: boolean,
  ): Promise<Assertion> {
    const verify = (counter: number) =>
      verifyAuthenticationResponse({
        response: response as AuthenticationResponseJSON,
        expectedChallenge: challenge,
        expectedOrigin: [...this.config.origins],
        expectedRPID: this.config.rpId,
        credential: { ...credential, counter },
        requireUserVerification,
      });
    let verified: Awaited<ReturnType<typeof verify>>;
    try {
      verified = await verify(credential.counter);
    } catch (error) {
      const withoutCounter =
        credential.counter > 0 ? await verify(0).catch(() => undefined) : undefined;
      if (withoutCounter?.verified) throw new CeremonyRefused('counter', messageOf(error));
      throw new CeremonyRefused('invalid', messageOf(error));
    }
    if (!verified.verified) throw new CeremonyRefused('invalid', 'not verified');
    const { newCounter, credentialDeviceType, credentialBackedUp } = verified.authenticationInfo;
    return { newCounter, deviceType: credentialDeviceType, backedUp: credentialBackedUp };
  }
}

/**
 * The challenge the browser signed, read from `clientDataJSON` without trusting it: only its
 * lookup depends on it, and the signature check that follows covers it. Null when unreadable.
 */
export function challengeOf(clientDataJSON: string): string | null {
  try {
    const data: unknown = JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8'));
    const challenge = (data as { challenge?: unknown } | null)?.challenge;
    return typeof challenge === 'string' && /^[A-Za-z0-9_-]{1,256}$/.test(challenge)
      ? challenge
      : null;
  } catch {
    return null;
  }
}

async function refusing<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw new CeremonyRefused('invalid', messageOf(error));
  }
}

/** A plain Uint8Array, as the library's types ask (not a Buffer). */
function bytes(base64url: string): Uint8Array<ArrayBuffer> {
  return new Uint8Array(Buffer.from(base64url, 'base64url'));
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
