import { Response } from 'supertest';
import { expectError } from './auth-helpers';
import { TestApp } from './test-app';

/**
 * Small numbers so a whole slow-down fits in seconds: 3 free failures, then waits of 1, 2, 4 and
 * 4 seconds (capped). Each request comes from an address of its own through a trusted proxy, and
 * the per-IP auth limit is the real one: only a per-account count can see these attempts.
 */
export const BACKOFF_ENV = {
  TRUST_PROXY: '1',
  THROTTLE_AUTH_LIMIT: '5',
  LOGIN_FAILURES_FREE: '3',
  LOGIN_BACKOFF_BASE: '1',
  LOGIN_BACKOFF_MAX: '4',
  LOGIN_FAILURES_RESET: '60',
};

/** A botnet: every request from an address no other request used. */
export class Botnet {
  private used = 0;

  get addresses(): number {
    return this.used;
  }

  login(t: TestApp, body: { email: string; password: string }): Promise<Response> {
    this.used += 1;
    const address = `198.51.${100 + Math.floor(this.used / 250)}.${(this.used % 250) + 1}`;
    return t.http().post('/api/v1/auth/login').set('X-Forwarded-For', address).send(body);
  }
}

/** What a client sees of an attempt: the status, and for a 429 its Retry-After. */
export function outcome(response: Response): string {
  if (response.status !== 429) return String(response.status);
  expectError(response, 429, 'RATE_LIMITED');
  return `429 after ${response.headers['retry-after']}`;
}

export const pause = (seconds: number) =>
  new Promise((resolve) => setTimeout(resolve, seconds * 1000 + 100));

/**
 * The documented slow-down, played against several emails in lockstep, each request from a new
 * address and from the instances in turn. `password` is tried during every wait: even the right
 * one is refused then. Returns each email's transcript; the caller's next attempt is after the
 * last wait has passed.
 */
export async function slowDown(
  instances: TestApp[],
  botnet: Botnet,
  emails: string[],
  password: string,
): Promise<string[][]> {
  const transcripts = emails.map(() => [] as string[]);
  const round = async (body: (email: string) => { email: string; password: string }) => {
    for (const [index, email] of emails.entries()) {
      // Each email's attempts go to the instances in turn.
      const t = instances[transcripts[index].length % instances.length];
      transcripts[index].push(outcome(await botnet.login(t, body(email))));
    }
  };
  const wrong = (email: string) => ({ email, password: 'not-the-password' });
  const right = (email: string) => ({ email, password });
  for (let i = 0; i < 3; i++) await round(wrong);
  // Refused during the wait, the right password included, and none of these is counted.
  await round(wrong);
  await round(right);
  await round(wrong);
  for (const wait of [1, 2, 4]) {
    await pause(wait);
    await round(wrong);
    await round(right);
  }
  await pause(4);
  return transcripts;
}

/** `slowDown`'s transcript for an email whose password was never given. */
export const SLOWED_DOWN = [
  '401',
  '401',
  '401',
  '429 after 1',
  '429 after 1',
  '429 after 1',
  '401',
  '429 after 2',
  '401',
  '429 after 4',
  '401',
  '429 after 4',
];
