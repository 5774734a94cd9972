import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AuthenticationResponseDto } from './dto/authentication-response.dto';
import { RegistrationResponseDto } from './dto/registration-response.dto';
import { CeremonyRefused, NewCredential, RelyingParty, challengeOf } from './relying-party';

interface Recorded {
  rpId: string;
  origin: string;
  registration: { challenge: string; response: RegistrationResponseDto };
  /** Two sign-ins in a row: counters 1 and 2. */
  authentications: Array<{ challenge: string; response: AuthenticationResponseDto }>;
}

/**
 * Recorded once (see the fixture's `recorded_with`): a registration and two sign-ins of one
 * ES256 passkey for relying party `localhost`, made on the page http://localhost:5173.
 */
const RECORDED = JSON.parse(
  readFileSync(join(__dirname, 'recorded-ceremonies.json'), 'utf8'),
) as Recorded;

const party = (origins = [RECORDED.origin], rpId = RECORDED.rpId) =>
  new RelyingParty({ rpId, rpName: 'Auth Service', origins });
const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;
const asStored = (credential: NewCredential, counter = credential.counter) => ({
  id: credential.id,
  publicKey: credential.publicKey,
  counter,
  transports: credential.transports,
});
const refusal = async (work: Promise<unknown>) => {
  const error: unknown = await work.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(CeremonyRefused);
  return (error as CeremonyRefused).reason;
};

describe('RelyingParty, on recorded ceremonies', () => {
  const { registration, authentications } = RECORDED;
  const [first, second] = authentications;

  it('verifies the registration: the key, its counter, a passkey bound to its device', async () => {
    const credential = await party().verifyRegistration(
      registration.response,
      registration.challenge,
    );
    expect(credential).toMatchObject({
      id: registration.response.id,
      counter: 0,
      transports: ['internal'],
      deviceType: 'singleDevice',
      backedUp: false,
    });
    expect(credential.publicKey.length).toBeGreaterThan(64);
  });

  it('refuses the registration for another challenge, origin or relying party', async () => {
    const { response, challenge } = registration;
    expect(await refusal(party().verifyRegistration(response, `${challenge.slice(1)}A`))).toBe(
      'invalid',
    );
    expect(
      await refusal(party(['https://evil.example.net']).verifyRegistration(response, challenge)),
    ).toBe('invalid');
    expect(
      await refusal(
        party([RECORDED.origin], 'example.com').verifyRegistration(response, challenge),
      ),
    ).toBe('invalid');
  });

  it('verifies the sign-ins in order, each counter above the last, user verified', async () => {
    const credential = await party().verifyRegistration(
      registration.response,
      registration.challenge,
    );
    const one = await party().verifyAuthentication(
      first.response,
      first.challenge,
      asStored(credential),
      true,
    );
    expect(one).toEqual({ newCounter: 1, deviceType: 'singleDevice', backedUp: false });
    const two = await party().verifyAuthentication(
      second.response,
      second.challenge,
      asStored(credential, one.newCounter),
      true,
    );
    expect(two.newCounter).toBe(2);
  });

  it('tells a counter that went back (a clone?) from any other fault', async () => {
    const credential = await party().verifyRegistration(
      registration.response,
      registration.challenge,
    );
    const stored = asStored(credential, 2);
    expect(
      await refusal(party().verifyAuthentication(first.response, first.challenge, stored, true)),
    ).toBe('counter');
    const tampered = copy(first.response);
    tampered.response.signature = `${tampered.response.signature.slice(0, -4)}AAAA`;
    expect(
      await refusal(
        party().verifyAuthentication(tampered, first.challenge, asStored(credential), true),
      ),
    ).toBe('invalid');
    expect(
      await refusal(
        party(['http://localhost:4000']).verifyAuthentication(
          first.response,
          first.challenge,
          asStored(credential),
          true,
        ),
      ),
    ).toBe('invalid');
    expect(
      await refusal(
        party().verifyAuthentication(first.response, second.challenge, asStored(credential), true),
      ),
    ).toBe('invalid');
  });

  it('reads the challenge a browser signed, and nothing else', () => {
    expect(challengeOf(first.response.response.clientDataJSON)).toBe(first.challenge);
    expect(challengeOf('not base64url JSON')).toBeNull();
    expect(challengeOf(Buffer.from('{"challenge":42}').toString('base64url'))).toBeNull();
    expect(challengeOf(Buffer.from('null').toString('base64url'))).toBeNull();
  });
});
