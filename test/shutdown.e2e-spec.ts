import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './support/free-port';
import { TestDatabase, createTestDatabase } from './support/test-database';
import { serviceArgs } from './support/service-build';

/** The real process (src/main.ts), stopped the way an orchestrator stops it. */
describe('graceful shutdown on SIGTERM', () => {
  let database: TestDatabase;
  let dataDir: string;
  let child: ChildProcess | undefined;

  beforeAll(async () => {
    database = await createTestDatabase();
    dataDir = mkdtempSync(join(tmpdir(), 'auth-shutdown-'));
  });

  afterAll(async () => {
    child?.kill('SIGKILL');
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('finishes the request in flight, stops listening, closes everything and exits 0', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/api/v1`;
    let output = '';
    child = spawn(process.execPath, serviceArgs('main'), {
      cwd: dataDir,
      env: {
        PATH: process.env.PATH,
        TS_NODE_PROJECT: join(__dirname, '../tsconfig.json'),
        PORT: String(port),
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        DATABASE_URL:
          database.kind === 'mysql' ? database.url : `sqlite:${join(dataDir, 'auth.sqlite')}`,
        // Slow enough hashing that a login is still in flight when the signal comes.
        BCRYPT_COST: '12',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
      child!.once('exit', (code, signal) => resolve({ code, signal })),
    );
    await waitForHealth(`${url}/health`, 60_000);
    const credentials = { email: 'stop@example.com', password: 'stop-pass-1', username: 'stopper' };
    expect((await post(`${url}/auth/register`, credentials)).status).toBe(201);

    const inFlight = post(`${url}/auth/login`, {
      email: credentials.email,
      password: credentials.password,
    });
    await new Promise((resolve) => setTimeout(resolve, 150));
    child.kill('SIGTERM');

    const login = await inFlight;
    expect(login.status).toBe(200);
    expect(((await login.json()) as { success: boolean }).success).toBe(true);
    expect(await exited).toEqual({ code: 0, signal: null });
    await expect(fetch(`${url}/health`)).rejects.toThrow();
    expect(output).toContain('SIGTERM: finishing the requests in flight, then stopping');
    expect(output).not.toMatch(/error/i);
  }, 90_000);
});

function post(url: string, body: object): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

async function waitForHealth(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not come up`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
