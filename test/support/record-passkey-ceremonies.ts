/*
 * Writes src/passkeys/recorded-ceremonies.json, the recorded ceremonies of RelyingParty's unit
 * test: one registration and two sign-ins of a software passkey, for relying party localhost on
 * the page http://localhost:5173. Run once, and again only to record anew:
 *   npx ts-node --transpile-only test/support/record-passkey-ceremonies.ts
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PasskeyAuthenticator } from './passkey-authenticator';

const origin = 'http://localhost:5173';
const rpId = 'localhost';
const challenge = () => randomBytes(32).toString('base64url');
const authenticator = new PasskeyAuthenticator(origin);
const registration = challenge();
const recorded = {
  recorded_with: 'test/support/record-passkey-ceremonies.ts (PasskeyAuthenticator)',
  rpId,
  origin,
  registration: {
    challenge: registration,
    response: authenticator.create({
      challenge: registration,
      rp: { id: rpId, name: 'Auth Service' },
      user: {
        id: Buffer.from('user_000000000000000001').toString('base64url'),
        name: 'ann@example.com',
        displayName: 'ann',
      },
    }),
  },
  authentications: [challenge(), challenge()].map((signed) => ({
    challenge: signed,
    response: authenticator.get({ challenge: signed, rpId }),
  })),
};
writeFileSync(
  join(__dirname, '..', '..', 'src', 'passkeys', 'recorded-ceremonies.json'),
  `${JSON.stringify(recorded, null, 2)}\n`,
);
