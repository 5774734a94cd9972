import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port';
import { ACCESS_SECRET, HTTP_PLATFORM, MFA_KEY, REFRESH_SECRET } from './test-app';
import { serviceArgs } from './service-build';

/** The real service (src/main.ts through ts-node) as a process of its own, as it is deployed. */
export interface ServiceProcess {
  /** `http://127.0.0.1:<port>/api/v1` */
  url: string;
  /** Everything it printed so far. */
  output(): string;
  stop(): Promise<void>;
  /** `kill -9`: no shutdown hook runs, nothing is flushed; the data folder stays. */
  crash(): Promise<void>;
}

export interface ProcessOptions {
  /** A folder that outlives the process (its SQLite file, outbox and keys), kept on stop. */
  dataDir?: string;
}

export async function startServiceProcess(
  env: Record<string, string>,
  options: ProcessOptions = {},
): Promise<ServiceProcess> {
  const port = await freePort();
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'auth-process-'));
  let output = '';
  const child = spawnService(port, dataDir, env);
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}/api/v1`;
  const stop = async () => {
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
    if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
  };
  const crash = async () => {
    child.kill('SIGKILL');
    await exited;
  };
  try {
    await waitFor(`${url}/health`, 60_000, exited);
  } catch (error) {
    await stop();
    throw new Error(`${String(error)}\n${output}`);
  }
  return { url, output: () => output, stop, crash };
}

/**
 * The service as a process that is expected to stop at boot (a refused start): its exit code and
 * everything it printed. Killed if it is still running after `timeoutMs` (its code is then null).
 */
export async function runServiceProcess(
  env: Record<string, string>,
  options: ProcessOptions & { timeoutMs?: number } = {},
): Promise<{ code: number | null; output: string }> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'auth-process-'));
  const child = spawnService(await freePort(), dataDir, env);
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  clearTimeout(timer);
  if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
  return { code, output };
}

function spawnService(port: number, dataDir: string, env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, serviceArgs('main'), {
    cwd: dataDir,
    env: {
      PATH: process.env.PATH,
      TS_NODE_PROJECT: join(__dirname, '../../tsconfig.json'),
      NODE_ENV: 'test',
      HTTP_PLATFORM,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      MAIL_OUTBOX_DIR: join(dataDir, 'mail'),
      JWT_ACCESS_SECRET: ACCESS_SECRET,
      JWT_REFRESH_SECRET: REFRESH_SECRET,
      // One key for every process, as JWT secrets: instances open each other's TOTP secrets.
      MFA_ENCRYPTION_KEY: MFA_KEY,
      BCRYPT_COST: '4',
      THROTTLE_LIMIT: '10000000',
      THROTTLE_AUTH_LIMIT: '10000000',
      MAIL_RECIPIENT_LIMIT: '100000',
      // One line per request would cost the load more CPU than the service's own work.
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

async function waitFor(url: string, timeoutMs: number, exited: Promise<void>): Promise<void> {
  let gone = false;
  void exited.then(() => (gone = true));
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    if (gone) throw new Error('the service exited at boot');
    if (Date.now() > deadline) throw new Error(`${url} did not come up`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * A JSON POST to a service process as an API client sends it (tokens in the body, not cookies),
 * with its answer's status and parsed body.
 */
export async function postJson(
  service: ServiceProcess,
  path: string,
  body: object,
  access?: string,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${service.url}${path}`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      'X-Token-Delivery': 'body',
      ...(access ? { Authorization: `Bearer ${access}` } : {}),
    },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}
