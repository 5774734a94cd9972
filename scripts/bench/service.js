'use strict';
// The built service as the bench and the soak run start it: the command line of
// `npm run start:prod`, a data folder and fresh secrets of its own, a free loopback port.
const { spawn } = require('node:child_process');
const { randomBytes } = require('node:crypto');
const { mkdtempSync, readFileSync, rmSync } = require('node:fs');
const { createServer } = require('node:net');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { performance } = require('node:perf_hooks');
const { waitForHealth } = require('./load');

const ROOT = join(__dirname, '..', '..');
/** The Node flags of `npm run start:prod`, so what is measured is what ships. */
const NODE_FLAGS = require('../../package.json')
  .scripts['start:prod'].split(/\s+/)
  .filter((arg) => arg.startsWith('--'));

/** A port nothing listens on now, so a run goes beside anything else on the machine. */
function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/**
 * Starts `dist/main.js` in production mode with rate limits raised, and resolves once it answers.
 * `env(dataDir)` adds or overrides variables; `stdio` is spawn's.
 */
async function startBuiltService({
  name,
  env = () => ({}),
  stdio = ['ignore', 'ignore', 'inherit'],
  // Another build of the service (an earlier commit's), to compare two versions side by side.
  main = join(ROOT, 'dist', 'main.js'),
  // That build's own `start:prod` flags, when they may differ from this checkout's.
  nodeFlags = NODE_FLAGS,
  // How often the health route is asked while the service starts (`startupMs` is that precise).
  healthPollMs = 200,
}) {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), `auth-${name}-`));
  const spawnedAt = performance.now();
  const child = spawn(process.execPath, [...nodeFlags, main], {
    cwd: dataDir,
    stdio,
    env: {
      PATH: process.env.PATH,
      NODE_ENV: 'production',
      PORT: String(port),
      HOST: '127.0.0.1',
      JWT_ACCESS_SECRET: randomBytes(32).toString('hex'),
      JWT_REFRESH_SECRET: randomBytes(32).toString('hex'),
      MFA_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      MAIL_OUTBOX_DIR: join(dataDir, 'mail'),
      DATA_DIR: dataDir,
      THROTTLE_LIMIT: '10000000',
      THROTTLE_AUTH_LIMIT: '10000000',
      ...env(dataDir),
    },
  });
  const url = `http://127.0.0.1:${port}`;
  await waitForHealth(`${url}/api/v1/health`, child, { everyMs: healthPollMs });
  const startupMs = performance.now() - spawnedAt;
  const memoryMb = (field) => {
    const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
    return Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)[1]) / 1024;
  };
  return {
    child,
    url,
    /** From the spawn to the first 200 of the health route. */
    startupMs,
    rssMb: () => memoryMb('VmRSS'),
    peakRssMb: () => memoryMb('VmHWM'),
    stop: async () => {
      // Already gone when Ctrl-C reached it too (one process group).
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

module.exports = { NODE_FLAGS, ROOT, freePort, startBuiltService };
