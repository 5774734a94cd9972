'use strict';
// npm run bench:ablation: where the Express token check's time goes. The built service runs whole
// and then with one part switched off at a time (scripts/bench/ablate.js, loaded only here), each
// verify-token run paired with a run of the minimal Nest app just before it; the table gives each
// variant's share of that reference and what switching the part off won back. See
// docs/performance.md. ABLATION_PARTS (comma-separated, default all), BENCH_DURATION (seconds per
// run, default 5), BENCH_RUNS (default 3, medians kept), BENCH_PLATFORMS (default express).
const { execSync, fork } = require('node:child_process');
const { mkdirSync, readFileSync, writeFileSync } = require('node:fs');
const { availableParallelism, cpus, loadavg, totalmem } = require('node:os');
const { join } = require('node:path');
const { runAutocannon, jsonPost } = require('./load');
const { NODE_FLAGS, ROOT, startBuiltService } = require('./service');
const { PARTS } = require('./ablate');

const DURATION = Number(process.env.BENCH_DURATION || 5);
const RUNS = Number(process.env.BENCH_RUNS || 3);
const CONNECTIONS = 50;
/** Seconds of load each new service process gets before it is measured. */
const WARM_UP = 3;
const PASSWORD = 'bench-password-1';
/** A browser's request carries the page's origin: the CORS rows send one, from an allowed app. */
const APP_ORIGIN = 'http://localhost:5173';

/** What each variant is, as the table names it. */
const VARIANTS = [
  { name: 'the whole service', env: {} },
  ...pick(process.env.ABLATION_PARTS, PARTS).map((part) => ({
    name: `without ${part}`,
    part,
    env: { ABLATE: part },
  })),
  // Off by default (no METRICS_TOKEN): its row says what switching it on costs.
  { name: 'with metrics on (METRICS_TOKEN set)', env: { METRICS_TOKEN: 'x'.repeat(32) } },
];
/** CORS only runs for a request with an Origin: its pair of rows sends one. */
const WITH_ORIGIN = [
  { name: 'the whole service, request with an Origin', env: {}, origin: true },
  { name: 'without cors, request with an Origin', env: { ABLATE: 'cors' }, origin: true },
];

function pick(value, all) {
  if (!value) return all;
  const picked = value.split(',').map((item) => item.trim());
  const unknown = picked.filter((item) => !all.includes(item));
  if (unknown.length > 0) throw new Error(`ABLATION_PARTS: a subset of ${all.join(', ')}`);
  return picked;
}

async function main() {
  const platform = process.env.BENCH_PLATFORMS || 'express';
  const variants = [...VARIANTS, ...(process.env.ABLATION_PARTS ? [] : WITH_ORIGIN)];
  console.log(
    `Ablation on ${platform}: ${variants.length} variants × ${RUNS} round(s), each a reference ` +
      `and a service run of ${DURATION} s; about ${Math.ceil((variants.length * RUNS * (2 * DURATION + 3) + 60) / 60)} min.`,
  );
  execSync('npm run -s build', { cwd: ROOT, stdio: 'inherit' });
  const reference = await startReference();
  const rows = [];
  try {
    for (const variant of variants) {
      const service = await startVariant(variant, platform);
      try {
        // A fresh process runs its first seconds unoptimised: not what a long-lived one serves.
        await verifyRun(service, variant.origin, WARM_UP);
        const rounds = [];
        for (let round = 0; round < RUNS; round++) {
          const ref = await verifyRun(reference, variant.origin);
          const own = await verifyRun(service, variant.origin);
          rounds.push({ ref: ref.rps, own: own.rps, share: own.rps / ref.rps, p99: own.p99 });
        }
        const row = { ...variant, ...medians(rounds), rss: service.peakRssMb() };
        rows.push(row);
        console.log(`  ${variant.name}: ${fmt(row.own)} req/s, ${pct(row.share)} of the reference`);
      } finally {
        await service.stop();
      }
    }
  } finally {
    reference.stop();
  }
  report(rows, platform);
}

function medians(rounds) {
  const median = (key) => {
    const sorted = rounds.map((round) => round[key]).sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)];
  };
  const shares = rounds.map((round) => round.share);
  return {
    ref: median('ref'),
    own: median('own'),
    share: median('share'),
    p99: median('p99'),
    // The rounds' spread: a change smaller than it is not a measurement.
    low: Math.min(...shares),
    high: Math.max(...shares),
  };
}

async function startReference() {
  const child = fork(join(__dirname, 'nest-minimal.js'), {
    env: { ...process.env, NODE_ENV: 'production', PORT: '0' },
  });
  const { port } = await new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) => reject(new Error(`nest-minimal.js exited with ${code}`)));
  });
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    session: async () => (await jsonPost(`${url}/bench/session`, {})).access_token,
    stop: () => child.kill(),
  };
}

async function startVariant(variant, platform) {
  const service = await startBuiltService({
    name: 'ablation',
    env: () => ({
      HTTP_PLATFORM: platform,
      BCRYPT_COST: '4',
      CORS_ORIGINS: APP_ORIGIN,
      NODE_OPTIONS: `--require ${join(__dirname, 'ablate.js')}`,
      ...variant.env,
    }),
  });
  const email = 'bench@example.com';
  await jsonPost(`${service.url}/api/v1/auth/register`, {
    email,
    password: PASSWORD,
    username: 'bench',
  });
  return {
    ...service,
    session: async () =>
      (
        await jsonPost(
          `${service.url}/api/v1/auth/login`,
          { email, password: PASSWORD },
          { 'x-token-delivery': 'body' },
        )
      ).access_token,
  };
}

async function verifyRun(server, origin, duration = DURATION) {
  const access = await server.session();
  return runAutocannon({
    url: `${server.url}/api/v1/auth/verify-token`,
    connections: CONNECTIONS,
    duration,
    headers: { authorization: `Bearer ${access}`, ...(origin ? { origin: APP_ORIGIN } : {}) },
  });
}

const fmt = (n, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const pct = (share) => `${fmt(100 * share, 1)} %`;

function report(rows, platform) {
  const whole = rows.find((row) => row.name === 'the whole service');
  const wholeWithOrigin = rows.find((row) => row.origin && !row.part);
  const lines = [
    '| variant | verify-token req/s | minimal Nest app req/s (just before) | share of it | rounds | change against the whole service | p99 (ms) | peak RSS (MB) |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const row of rows) {
    const base = row.origin ? wholeWithOrigin : whole;
    const change = row === base || !base ? '–' : `${signed(row.share / base.share - 1)}`;
    lines.push(
      `| ${row.name} | ${fmt(row.own)} | ${fmt(row.ref)} | ${pct(row.share)} | ${fmt(100 * row.low, 1)}–${pct(row.high)} | ${change} | ${fmt(row.p99)} | ${fmt(row.rss)} |`,
    );
  }
  const table = lines.join('\n');
  const conditions = [
    `- ${platform}; ${RUNS} round(s) of ${DURATION} s per run, ${CONNECTIONS} connections, autocannon over loopback; each service run follows a run of the minimal Nest app (\`scripts/bench/nest-minimal.js\`), and the change is the ratio of the two shares (the variant's over the whole service's), medians of the rounds.`,
    `- Each variant is \`node ${[...NODE_FLAGS, 'dist/main.js'].join(' ')}\` with \`NODE_OPTIONS=--require scripts/bench/ablate.js\` and \`ABLATE=<part>\` (the part switched off before start, nothing else), \`NODE_ENV=production\`, embedded SQLite, rate limits raised to 10⁷, one user, one token.`,
    `- Machine: ${cpus()[0].model}, ${availableParallelism()} cores, ${fmt(totalmem() / 2 ** 30, 1)} GiB; Node ${process.version}; load average at the end ${loadavg()
      .map((n) => fmt(n, 1))
      .join(', ')}.`,
    `- Run at ${new Date().toISOString()}.`,
  ].join('\n');
  console.log(`\n${table}\n\n${conditions}`);
  const file = join(ROOT, 'docs', 'performance.md');
  mkdirSync(join(ROOT, 'docs'), { recursive: true });
  const existing = readFileSync(file, 'utf8');
  const marker = '<!-- ablation:start -->';
  const end = '<!-- ablation:end -->';
  const block = `${marker}\n${table}\n\n${conditions}\n${end}`;
  writeFileSync(
    file,
    existing.includes(marker)
      ? existing.replace(new RegExp(`${marker}[\\s\\S]*${end}`), block)
      : `${existing.trimEnd()}\n\n## Where the token check's time goes (ablation)\n\n${block}\n`,
  );
  console.log('\nWritten to docs/performance.md');
}

const signed = (change) => `${change >= 0 ? '+' : '−'}${fmt(Math.abs(100 * change), 1)} %`;

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
