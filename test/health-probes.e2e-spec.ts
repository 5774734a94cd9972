import { request as httpRequest } from 'node:http';
import { freePort } from './support/free-port';
import { TestApp, startTestApp } from './support/test-app';

const PROBES_PER_SECOND = 100;
const PROBE_SECONDS = 60;
/** The contract's deadline for readiness, and so what a balancer's check timeout may be. */
const CHECK_TIMEOUT_MS = 1000;

interface Answer {
  /** 0 when the connection failed or timed out. */
  status: number;
  ms: number;
}

/**
 * A load balancer probes each instance from its own address, and several balancers add up: far
 * past what the general limit allows one client.
 * Probes must never be counted against it, while the limit itself keeps holding for the API from
 * that very address. Runs in the MariaDB pass only (jest.config.js): CI pays the minute once.
 */
describe('health probes at a load balancer rate', () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    // The defaults of the contract, not test-app's raised ones.
    t = await startTestApp({ THROTTLE_LIMIT: '50', THROTTLE_AUTH_LIMIT: '5' });
    port = await freePort();
    await t.app.listen(port, '127.0.0.1');
  });
  afterAll(() => t?.close());

  it('answers a minute of 100 probes a second with 200 while the API from that address answers 429', async () => {
    // Spend the address's general budget: the API refuses it from here on.
    const budget: number[] = [];
    for (let call = 0; call < 50; call++)
      budget.push((await get('/api/v1/auth/verify-token')).status);
    expect(budget).toEqual(Array(50).fill(401));
    expect((await get('/api/v1/auth/verify-token')).status).toBe(429);

    // Paced evenly as a balancer sends them, alternating liveness and readiness, each on a
    // connection of its own; now and then an API call from the same address.
    const total = PROBES_PER_SECOND * PROBE_SECONDS;
    const probes: Promise<Answer>[] = [];
    const apiCalls: Promise<Answer>[] = [];
    const started = performance.now();
    for (let n = 0; n < total; n++) {
      const due = started + (n * 1000) / PROBES_PER_SECOND;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      probes.push(get(n % 2 === 0 ? '/api/v1/health' : '/api/v1/health/ready'));
      if (n % (PROBES_PER_SECOND * 10) === PROBES_PER_SECOND * 5)
        apiCalls.push(get('/api/v1/auth/verify-token'));
    }
    const answers = await Promise.all(probes);

    expect(countByStatus(answers)).toEqual({ 200: total });
    expect(Math.max(...answers.map((answer) => answer.ms))).toBeLessThan(CHECK_TIMEOUT_MS);
    expect((await Promise.all(apiCalls)).map((answer) => answer.status)).toEqual(
      Array(PROBE_SECONDS / 10).fill(429),
    );
    // The limit still holds after the probing, and says when to come back.
    const after = await get('/api/v1/auth/verify-token');
    expect(after.status).toBe(429);
    expect(Number(after.retryAfter)).toBeGreaterThan(0);
  }, 90_000);

  function get(path: string): Promise<Answer & { retryAfter?: string }> {
    const sent = performance.now();
    return new Promise((resolve) => {
      const done = (status: number, retryAfter?: string) =>
        resolve({ status, ms: performance.now() - sent, retryAfter });
      // agent: false, a connection per request, as a balancer's checks open them.
      const req = httpRequest(
        { host: '127.0.0.1', port, path, agent: false, timeout: CHECK_TIMEOUT_MS * 5 },
        (res) => {
          res.resume();
          res.on('end', () => done(res.statusCode ?? 0, res.headers['retry-after']));
        },
      );
      req.on('timeout', () => req.destroy());
      req.on('error', () => done(0));
      req.end();
    });
  }
});

function countByStatus(answers: Answer[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const { status } of answers) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}
