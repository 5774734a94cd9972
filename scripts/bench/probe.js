'use strict';
// A latency probe for the scale bench: GETs a URL at a fixed rate from a worker thread, so the
// load generated on the main thread does not delay it. Each latency is counted from when its
// request was due, not from when it left: a stalled service delays every probe due meanwhile,
// as it would delay its users (autocannon's fixed rate waits for the previous answer instead).
const http = require('node:http');
const { join } = require('node:path');
const { performance } = require('node:perf_hooks');
const { Worker, isMainThread, parentPort, workerData } = require('node:worker_threads');

/**
 * Resolves with `{ count, failures, p50, p99, max, samples }` (ms) of `rate` GETs/s for `seconds`, counted
 * after `warmupMs` of GETs one at a time (the thread's first requests are slow on their own).
 */
function probeAtRate(url, rate, seconds, warmupMs = 500) {
  return new Promise((resolve, reject) => {
    const worker = new Worker(join(__dirname, 'probe.js'), {
      workerData: { url, rate, seconds, warmupMs },
    });
    worker.once('message', resolve);
    worker.once('error', reject);
    worker.once('exit', (code) => {
      if (code !== 0) reject(new Error(`the probe exited with ${code}`));
    });
  });
}

/**
 * The same probe without an end set in advance: `stop()` ends it and resolves with its figures
 * (for a background job whose length is what is measured).
 */
function probeUntilStopped(url, rate, warmupMs = 500) {
  const worker = new Worker(join(__dirname, 'probe.js'), {
    workerData: { url, rate, seconds: Infinity, warmupMs },
  });
  const result = new Promise((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return {
    stop: async () => {
      worker.postMessage('stop');
      return result;
    },
  };
}

/** One GET; resolves with its status (0: no answer). */
function get(url, agent) {
  return new Promise((resolve) => {
    const request = http.get(url, { agent, timeout: 30_000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    });
    request.on('timeout', () => request.destroy(new Error('timeout')));
    request.on('error', () => resolve(0));
  });
}

async function probe({ url, rate, seconds, warmupMs }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const warm = performance.now() + warmupMs;
  while (performance.now() < warm) await get(url, agent);
  const total = Math.round(rate * seconds);
  let stopped = false;
  parentPort.once('message', () => (stopped = true));
  // Listening must not keep the thread alive once the probes are done.
  parentPort.unref();
  const start = performance.now();
  const latencies = [];
  let failures = 0;
  const answers = [];
  /** [when it was due (ms since the epoch), its latency or null when it failed], for windows. */
  const samples = [];
  for (let i = 0; i < total && !stopped; i++) {
    const due = start + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    answers.push(
      get(url, agent).then((status) => {
        const latency = performance.now() - due;
        samples.push([performance.timeOrigin + due, status === 200 ? latency : null]);
        if (status === 200) latencies.push(latency);
        else failures++;
      }),
    );
  }
  await Promise.all(answers);
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (share) =>
    latencies[Math.min(latencies.length - 1, Math.floor(share * latencies.length))];
  return {
    count: latencies.length,
    failures,
    p50: at(0.5),
    p99: at(0.99),
    max: latencies[latencies.length - 1],
    samples,
  };
}

if (!isMainThread && workerData?.url) {
  probe(workerData).then((result) => parentPort.postMessage(result));
}

module.exports = { probeAtRate, probeUntilStopped };
