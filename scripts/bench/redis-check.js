'use strict';
// verify-token with REDIS_URL on MariaDB, two builds of the service side by side: `dist/` (this
// checkout) and BENCH_BEFORE_MAIN (another commit's `dist/main.js`), each run paired with the
// minimal Nest app just before it, as `npm run bench` pairs its figures. Prints the median
// ratios. Express only; BENCH_DURATION and BENCH_RUNS as in the bench.
//
//   BENCH_BEFORE_MAIN=/path/to/old/dist/main.js node scripts/bench/redis-check.js
const { fork } = require('node:child_process');
const { randomBytes } = require('node:crypto');
const { join } = require('node:path');
const mysql = require('mysql2/promise');
const { jsonPost, runAutocannon } = require('./load');
const { ROOT, startBuiltService } = require('./service');

const DURATION = Number(process.env.BENCH_DURATION || 5);
const RUNS = Number(process.env.BENCH_RUNS || 3);
const MYSQL = (process.env.BENCH_MYSQL_URL || 'mysql://root@127.0.0.1:3306').replace(/\/$/, '');
const REDIS = process.env.BENCH_REDIS_URL || 'redis://127.0.0.1:6379';
const BEFORE = process.env.BENCH_BEFORE_MAIN;
const CONNECTIONS = 50;

async function admin(statement) {
  const connection = await mysql.createConnection({ uri: MYSQL });
  try {
    await connection.query(statement);
  } finally {
    await connection.end();
  }
}

async function startReference() {
  const child = fork(join(__dirname, 'nest-minimal.js'), {
    env: { ...process.env, NODE_ENV: 'production', PORT: '0' },
  });
  const { port } = await new Promise((resolve) => child.once('message', resolve));
  const url = `http://127.0.0.1:${port}`;
  const { access_token: access } = await jsonPost(`${url}/bench/session`, {});
  return { label: 'minimal Nest app', url, access, stop: async () => child.kill() };
}

async function startService(label, main) {
  const database = `auth_bench_${randomBytes(4).toString('hex')}`;
  await admin(`CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4`);
  const service = await startBuiltService({
    name: 'redis-check',
    main,
    env: () => ({
      DATABASE_URL: `${MYSQL}/${database}`,
      REDIS_URL: REDIS,
      REDIS_KEY_PREFIX: `auth-bench-${randomBytes(4).toString('hex')}:`,
      HTTP_PLATFORM: 'express',
    }),
  });
  const user = { email: 'bench@example.com', password: 'bench-pass-1', username: 'bench' };
  await jsonPost(`${service.url}/api/v1/auth/register`, user);
  const credentials = { email: user.email, password: user.password };
  const body = await jsonPost(`${service.url}/api/v1/auth/login`, credentials, {
    'x-token-delivery': 'body',
  });
  return {
    label,
    url: service.url,
    access: body.access_token,
    stop: async () => {
      await service.stop();
      await admin(`DROP DATABASE IF EXISTS \`${database}\``);
    },
  };
}

const verify = (server) =>
  runAutocannon({
    url: `${server.url}/api/v1/auth/verify-token`,
    connections: CONNECTIONS,
    duration: DURATION,
    headers: { authorization: `Bearer ${server.access}` },
  });

const median = (values) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)];

async function main() {
  if (!BEFORE) throw new Error('BENCH_BEFORE_MAIN must name the other build’s dist/main.js');
  const started = [];
  const ratios = new Map();
  const rates = new Map();
  try {
    const reference = await startReference();
    started.push(reference);
    const services = [];
    for (const [label, main] of [
      ['before', BEFORE],
      ['after', join(ROOT, 'dist', 'main.js')],
    ]) {
      services.push(await startService(label, main));
      started.push(services.at(-1));
      ratios.set(label, []);
      rates.set(label, []);
    }
    for (let round = 0; round < RUNS; round++) {
      // Alternate which build goes first, so the machine's drift does not favour one.
      const order = round % 2 === 0 ? services : [...services].reverse();
      for (const service of order) {
        const base = await verify(reference);
        const run = await verify(service);
        if (run.failures > 0) throw new Error(`${service.label}: ${run.failures} failures`);
        ratios.get(service.label).push(run.rps / base.rps);
        rates.get(service.label).push(run.rps);
        console.log(
          `round ${round + 1} ${service.label}: ${run.rps.toFixed(0)} req/s, ` +
            `reference ${base.rps.toFixed(0)} req/s, ${((100 * run.rps) / base.rps).toFixed(1)} %`,
        );
      }
    }
  } finally {
    await Promise.all(started.map((s) => s.stop()));
  }
  for (const [label, values] of ratios) {
    console.log(
      `${label}: median ${median(rates.get(label)).toFixed(0)} req/s, ` +
        `${(100 * median(values)).toFixed(1)} % of the minimal Nest app`,
    );
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
