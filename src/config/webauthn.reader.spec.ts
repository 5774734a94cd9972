import { EnvReader } from './env.reader';
import { readWebAuthn } from './webauthn.reader';

const DEFAULTS = {
  publicUrl: 'https://auth.example.com',
  appName: 'Example',
  appOrigins: ['https://app.example.com', 'https://partner.test', 'http://localhost:5173'],
};

function read(env: Record<string, string>, defaults = DEFAULTS) {
  const reader = new EnvReader(env);
  const config = readWebAuthn(reader, defaults);
  reader.assertValid();
  return config;
}

describe('readWebAuthn', () => {
  it('derives the relying party from PUBLIC_URL, APP_NAME and the APP_ORIGINS it can serve', () => {
    expect(read({}, { ...DEFAULTS, publicUrl: 'https://example.com/auth' })).toEqual({
      rpId: 'example.com',
      rpName: 'Example',
      origins: ['https://app.example.com'],
    });
    // Outside production, the defaults give a working relying party on localhost.
    expect(
      read(
        {},
        { publicUrl: 'http://localhost:3000', appName: 'A', appOrigins: ['http://localhost:5173'] },
      ),
    ).toEqual({ rpId: 'localhost', rpName: 'A', origins: ['http://localhost:5173'] });
  });

  it('takes WEBAUTHN_RP_ID, WEBAUTHN_RP_NAME and WEBAUTHN_ORIGINS as given', () => {
    expect(
      read({
        WEBAUTHN_RP_ID: 'Example.com',
        WEBAUTHN_RP_NAME: 'Example Accounts',
        WEBAUTHN_ORIGINS: 'https://example.com, https://login.example.com/',
      }),
    ).toEqual({
      rpId: 'example.com',
      rpName: 'Example Accounts',
      origins: ['https://example.com', 'https://login.example.com'],
    });
  });

  it.each([
    [{ WEBAUTHN_RP_ID: 'https://example.com' }, /WEBAUTHN_RP_ID must be a host name/],
    [{ WEBAUTHN_RP_ID: 'example.com:8443' }, /WEBAUTHN_RP_ID must be a host name/],
    [{ WEBAUTHN_RP_ID: '10.0.0.1' }, /WEBAUTHN_RP_ID must be a host name/],
    [
      { WEBAUTHN_RP_ID: 'example.com', WEBAUTHN_ORIGINS: 'https://example.org' },
      /WEBAUTHN_ORIGINS must be https \(or http on localhost\) origins on example.com .*example.org/,
    ],
    [
      { WEBAUTHN_RP_ID: 'example.com', WEBAUTHN_ORIGINS: 'http://app.example.com' },
      /WEBAUTHN_ORIGINS must be https/,
    ],
    [{ WEBAUTHN_ORIGINS: 'not a url' }, /WEBAUTHN_ORIGINS must list http\(s\) origins/],
  ])('refuses %j at boot', (env, message) => {
    expect(() => read(env)).toThrow(message);
  });
});
