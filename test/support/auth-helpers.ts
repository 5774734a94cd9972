import { Response } from 'supertest';
import { TestApp } from './test-app';

export const PASSWORD = 'correct horse';

let counter = 0;

export function uniqueUser(prefix = 'user') {
  counter += 1;
  const name = `${prefix}${process.pid}x${counter}`;
  return { email: `${name}@example.com`, username: name, password: PASSWORD };
}

/** `name=value` pairs of the Set-Cookie headers, keyed by cookie name. */
export function cookiesOf(response: Response): Record<string, { value: string; raw: string }> {
  const header = response.headers['set-cookie'] as unknown as string[] | undefined;
  const result: Record<string, { value: string; raw: string }> = {};
  for (const raw of header ?? []) {
    const [pair] = raw.split(';');
    const index = pair.indexOf('=');
    result[pair.slice(0, index)] = { value: pair.slice(index + 1), raw };
  }
  return result;
}

export interface LoggedIn {
  user: { id: string; email: string; username: string };
  access: string;
  refresh: string;
  credentials: { email: string; username: string; password: string };
}

export async function registerUser(t: TestApp, credentials = uniqueUser()) {
  const response = await t.http().post('/api/v1/auth/register').send(credentials).expect(201);
  return { credentials, user: response.body.data.user as LoggedIn['user'] };
}

export async function login(
  t: TestApp,
  credentials: { email: string; password: string },
): Promise<Omit<LoggedIn, 'credentials'>> {
  const response = await t
    .http()
    .post('/api/v1/auth/login')
    .send({ email: credentials.email, password: credentials.password })
    .expect(200);
  const cookies = cookiesOf(response);
  return {
    user: response.body.data.user,
    access: cookies.access_token.value,
    refresh: cookies.refresh_token.value,
  };
}

export async function registerAndLogin(t: TestApp, credentials = uniqueUser()): Promise<LoggedIn> {
  await registerUser(t, credentials);
  return { ...(await login(t, credentials)), credentials };
}

/** Signs in from another device and logs out there: every session of the user ends. */
export async function logOutElsewhere(
  t: TestApp,
  credentials: { email: string; password: string },
): Promise<void> {
  const otherDevice = await login(t, credentials);
  await t
    .http()
    .post('/api/v1/auth/logout')
    .set('Authorization', `Bearer ${otherDevice.access}`)
    .expect(200);
}

/** POST /auth/refresh with this refresh token as the browser would send it. */
export function refreshWith(t: TestApp, token: string) {
  return t.http().post('/api/v1/auth/refresh').set('Cookie', `refresh_token=${token}`);
}

/** Every failure body is the envelope with this code and nothing else. */
export function expectError(response: Response, status: number, code: string): void {
  expect({ status: response.status, body: response.body }).toMatchObject({
    status,
    body: { success: false, error: code, message: expect.any(String) },
  });
  expect(Object.keys(response.body).sort()).toEqual(
    expect.arrayContaining(['error', 'message', 'success']),
  );
  for (const key of Object.keys(response.body)) {
    expect(['success', 'message', 'error', 'details']).toContain(key);
  }
}
