import { KeyObject, createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto';

/*
 * A software passkey authenticator for tests: what a browser and a platform authenticator
 * together answer to WebAuthn options, as the JSON @simplewebauthn/browser sends (ES256 keys,
 * attestation `none`, discoverable credentials). Tests drive the service through HTTP with it,
 * and tamper with what it answers.
 */

type Json = Record<string, unknown>;

export interface CreationOptions {
  challenge: string;
  rp: { id?: string; name: string };
  user: { id: string; name: string; displayName: string };
}

export interface RequestOptions {
  challenge: string;
  rpId?: string;
  allowCredentials?: Array<{ id: string }>;
}

interface StoredCredential {
  id: Buffer;
  key: KeyObject;
  rpId: string;
  userHandle: string;
  counter: number;
}

export interface CeremonyOptions {
  /** The page's origin, as the browser writes it into clientDataJSON. */
  origin?: string;
  /** A credential of this authenticator to use (by id); by default the first that fits. */
  credentialId?: string;
  /** The counter to sign with, instead of the next one (a clone's would lag). */
  counter?: number;
  /** Whether the person was verified (PIN, biometrics); default true. */
  userVerified?: boolean;
}

export class PasskeyAuthenticator {
  private readonly credentials: StoredCredential[] = [];

  constructor(
    readonly origin: string,
    /** A synced passkey (backup eligible and backed up): amr `swk` instead of `hwk`. */
    private readonly synced = false,
  ) {}

  get ids(): string[] {
    return this.credentials.map((credential) => credential.id.toString('base64url'));
  }

  /** `navigator.credentials.create()` and the JSON of its answer. */
  create(options: CreationOptions, ceremony: CeremonyOptions = {}): Json {
    const rpId = options.rp.id ?? new URL(this.origin).hostname;
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const id = randomBytes(16);
    this.credentials.push({ id, key: privateKey, rpId, userHandle: options.user.id, counter: 0 });
    const jwk = publicKey.export({ format: 'jwk' });
    const cose = cbor(
      new Map<number, unknown>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, Buffer.from(jwk.x!, 'base64url')],
        [-3, Buffer.from(jwk.y!, 'base64url')],
      ]),
    );
    const length = Buffer.alloc(2);
    length.writeUInt16BE(id.length);
    const authData = Buffer.concat([
      this.authData(rpId, 0x40, 0, ceremony.userVerified),
      Buffer.alloc(16),
      length,
      id,
      cose,
    ]);
    const attestation = cbor(
      new Map<string, unknown>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', authData],
      ]),
    );
    return {
      id: id.toString('base64url'),
      rawId: id.toString('base64url'),
      type: 'public-key',
      authenticatorAttachment: 'platform',
      clientExtensionResults: {},
      response: {
        clientDataJSON: this.clientData('webauthn.create', options.challenge, ceremony.origin),
        attestationObject: attestation.toString('base64url'),
        transports: ['internal'],
      },
    };
  }

  /** `navigator.credentials.get()` and the JSON of its answer. */
  get(options: RequestOptions, ceremony: CeremonyOptions = {}): Json {
    const rpId = options.rpId ?? new URL(this.origin).hostname;
    const allowed = new Set((options.allowCredentials ?? []).map((credential) => credential.id));
    const credential = this.credentials.find(
      (candidate) =>
        candidate.rpId === rpId &&
        (ceremony.credentialId === undefined ||
          candidate.id.toString('base64url') === ceremony.credentialId) &&
        (allowed.size === 0 || allowed.has(candidate.id.toString('base64url'))),
    );
    if (!credential) throw new Error(`No passkey of this authenticator fits ${rpId}`);
    credential.counter = ceremony.counter ?? credential.counter + 1;
    const authData = this.authData(rpId, 0, credential.counter, ceremony.userVerified);
    const clientDataJSON = this.clientData('webauthn.get', options.challenge, ceremony.origin);
    const signed = Buffer.concat([
      authData,
      createHash('sha256').update(Buffer.from(clientDataJSON, 'base64url')).digest(),
    ]);
    return {
      id: credential.id.toString('base64url'),
      rawId: credential.id.toString('base64url'),
      type: 'public-key',
      authenticatorAttachment: 'platform',
      clientExtensionResults: {},
      response: {
        clientDataJSON,
        authenticatorData: authData.toString('base64url'),
        signature: sign('sha256', signed, credential.key).toString('base64url'),
        userHandle: credential.userHandle,
      },
    };
  }

  private authData(rpId: string, extra: number, counter: number, verified = true): Buffer {
    // UP, UV when verified, BE and BS when synced, and the caller's (AT: credential data).
    const flags = 0x01 | (verified ? 0x04 : 0) | (this.synced ? 0x18 : 0) | extra;
    const count = Buffer.alloc(4);
    count.writeUInt32BE(counter);
    return Buffer.concat([createHash('sha256').update(rpId).digest(), Buffer.from([flags]), count]);
  }

  private clientData(type: string, challenge: string, origin = this.origin): string {
    return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false })).toString(
      'base64url',
    );
  }
}

/** Just enough CBOR (RFC 8949) for COSE keys and attestation objects. */
function cbor(value: unknown): Buffer {
  const head = (major: number, length: number): Buffer => {
    if (length < 24) return Buffer.from([(major << 5) | length]);
    if (length < 0x100) return Buffer.from([(major << 5) | 24, length]);
    const bytes = Buffer.alloc(3);
    bytes[0] = (major << 5) | 25;
    bytes.writeUInt16BE(length, 1);
    return bytes;
  };
  if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === 'string') {
    const text = Buffer.from(value, 'utf8');
    return Buffer.concat([head(3, text.length), text]);
  }
  if (Buffer.isBuffer(value)) return Buffer.concat([head(2, value.length), value]);
  if (value instanceof Map) {
    const entries = [...(value as Map<unknown, unknown>)].flatMap(([key, item]) => [
      cbor(key),
      cbor(item),
    ]);
    return Buffer.concat([head(5, value.size), ...entries]);
  }
  throw new Error(`cbor: cannot encode ${typeof value}`);
}
