import fc from 'fast-check';
import { Response } from 'supertest';
import { registerAndLogin } from './support/auth-helpers';
import { TestApp, startTestApp } from './support/test-app';

/**
 * Bad input at scale: arbitrary JSON values, wrong types, unicode, huge strings and deep nesting
 * thrown at every endpoint. Whatever arrives, the answer is never a 5xx and always the envelope.
 */
const ENDPOINTS = [
  'auth/register',
  'auth/login',
  'auth/refresh',
  'auth/logout',
  'auth/verify-token',
  'auth/verify-email',
  'auth/resend-verification-email',
  'auth/forgot-password',
  'auth/reset-password',
  'email/verify',
  'email/reset',
  'users/me/email/confirm',
  'auth/passkey/verify',
  'auth/mfa/passkey/options',
  'auth/mfa/verify',
  'auth/email-code',
  'auth/email-code/verify',
];
/** Routes that read their body only once the access token has passed: sent with one. */
const SIGNED_IN_ENDPOINTS: Array<['patch' | 'post', string]> = [
  ['patch', 'users/me'],
  ['post', 'users/me/password'],
  ['post', 'users/me/email'],
];
/** Every field any endpoint reads, so generated objects hit the validators, not only the parser. */
const FIELDS = [
  'email',
  'password',
  'username',
  'emailConfig',
  'token',
  'newPassword',
  'applicationUrl',
  'locale',
  'name',
  'picture',
  'currentPassword',
  'newEmail',
  'challenge',
  'response',
  'passkey',
  'code',
  '__proto__',
  'constructor',
];
const RUNS = Number(process.env.FUZZ_RUNS ?? 40);

const text = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme' }),
  fc.string({ unit: 'binary', maxLength: 50 }),
  fc.constantFrom('', ' ', '\u0000', 'a@b.co', 'x'.repeat(300), '😀'.repeat(100), '%00', '../../'),
);
const value: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    text,
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.oneof(text, fc.constantFrom(...FIELDS)), tie('value'), { maxKeys: 4 }),
  ),
})).value;
const body = fc.oneof(
  fc.jsonValue(),
  value,
  fc.dictionary(fc.constantFrom(...FIELDS), value, { maxKeys: 6 }),
);

describe('arbitrary input at every endpoint', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  function expectEnvelope(response: Response, sent: string): void {
    const context = `${response.status} for ${sent.slice(0, 200)}`;
    expect({ context, serverError: response.status >= 500 }).toEqual({
      context,
      serverError: false,
    });
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(typeof response.body.success).toBe('boolean');
    expect(typeof response.body.message).toBe('string');
    if (!response.body.success) expect(typeof response.body.error).toBe('string');
    expect(JSON.stringify(response.body)).not.toMatch(/at .+\.(js|ts):\d+|QueryFailed|SQLITE|ER_/);
  }

  const post = (endpoint: string, raw: string) =>
    t.http().post(`/api/v1/${endpoint}`).set('Content-Type', 'application/json').send(raw);

  it.each(ENDPOINTS)('%s: JSON values of every shape and type', async (endpoint) => {
    await fc.assert(
      fc.asyncProperty(body, async (generated) => {
        const raw = JSON.stringify(generated) ?? 'null';
        expectEnvelope(await post(endpoint, raw), raw);
      }),
      { numRuns: RUNS },
    );
  });

  it.each(ENDPOINTS)('%s: bodies that are not JSON at all', async (endpoint) => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'binary', maxLength: 200 }), async (raw) => {
        expectEnvelope(await post(endpoint, raw), raw);
      }),
      { numRuns: Math.ceil(RUNS / 2) },
    );
  });

  it.each(SIGNED_IN_ENDPOINTS)(
    '%s %s (signed in): JSON values of every shape and type',
    async (method, endpoint) => {
      const { access } = await registerAndLogin(t);
      await fc.assert(
        fc.asyncProperty(body, async (generated) => {
          const raw = JSON.stringify(generated) ?? 'null';
          const http = t.http();
          const response = await http[method](`/api/v1/${endpoint}`)
            .set('Authorization', `Bearer ${access}`)
            .set('Content-Type', 'application/json')
            .send(raw);
          expectEnvelope(response, raw);
          // The token passed: what answered was the body's check, not the guard.
          expect(response.status).not.toBe(401);
        }),
        { numRuns: RUNS },
      );
    },
  );

  it('huge strings and deep nesting', async () => {
    const huge = JSON.stringify({ email: 'a'.repeat(1_000_000) + '@example.com', password: 'x' });
    const deep = '['.repeat(20_000) + ']'.repeat(20_000);
    const deepObject = '{"a":'.repeat(5_000) + '1' + '}'.repeat(5_000);
    const tooLarge = JSON.stringify({ email: 'b'.repeat(6 * 1024 * 1024) });
    for (const endpoint of ENDPOINTS) {
      for (const raw of [huge, deep, deepObject]) expectEnvelope(await post(endpoint, raw), raw);
    }
    const refused = await post('auth/register', tooLarge);
    expectEnvelope(refused, 'a 6 MB body');
    expect(refused.status).toBe(413);
  });
});
