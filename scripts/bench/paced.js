'use strict';
// Requests at a steady rate, one due every 1/rate seconds whatever the answers, for the scale
// bench's steady write load. autocannon's fixed rate sends each second's quota in a burst at the
// start of the second, which a latency probe running beside it would measure instead of the
// service.
const http = require('node:http');
const { performance } = require('node:perf_hooks');

/**
 * Sends `rate` requests a second for `seconds`; `next()` names each one (`{ path, method, headers,
 * body, done(res) }`, or undefined to let a slot go) and its `done` hears the answer. Resolves
 * with how many were answered 2xx (also per second: `rps`), and how many not.
 */
async function paced({ url, rate, seconds, next }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const start = performance.now();
  const total = Math.round(rate * seconds);
  const answers = [];
  let ok = 0;
  let failed = 0;
  for (let i = 0; i < total; i++) {
    const wait = start + (i * 1000) / rate - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const request = next();
    if (!request) continue;
    answers.push(
      new Promise((resolve) => {
        const payload = request.body === undefined ? '' : JSON.stringify(request.body);
        const req = http.request(
          `${url}${request.path}`,
          {
            agent,
            method: request.method ?? 'POST',
            timeout: 30_000,
            headers: {
              'content-type': 'application/json',
              'content-length': Buffer.byteLength(payload),
              ...request.headers,
            },
          },
          (res) => {
            const chunks = [];
            res.on('data', (chunk) => chunks.push(chunk));
            res.on('end', () => {
              if (res.statusCode >= 200 && res.statusCode < 300) ok++;
              else failed++;
              request.done?.(res, Buffer.concat(chunks).toString());
              resolve();
            });
          },
        );
        req.on('timeout', () => req.destroy(new Error('timeout')));
        req.on('error', () => {
          failed++;
          request.done?.(undefined);
          resolve();
        });
        req.end(payload);
      }),
    );
  }
  await Promise.all(answers);
  agent.destroy();
  return { ok, failed, rps: ok / seconds };
}

/**
 * Refreshes at a steady rate over `tokens.length` chains, each rotated by its next request once
 * the previous one has answered (a slot whose chains are all waiting goes unused).
 */
function pacedRefresh({ url, rate, seconds, tokens }) {
  const chains = tokens.map((token) => ({ token, busy: false }));
  let turn = 0;
  return paced({
    url,
    rate,
    seconds,
    next: () => {
      let chain;
      for (let i = 0; i < chains.length && !chain; i++) {
        const candidate = chains[turn++ % chains.length];
        if (!candidate.busy) chain = candidate;
      }
      if (!chain) return undefined;
      chain.busy = true;
      return {
        path: '/api/v1/auth/refresh',
        headers: { cookie: `refresh_token=${chain.token}` },
        done: (res) => {
          chain.busy = false;
          const cookie = (res?.headers['set-cookie'] ?? []).find((c) =>
            c.startsWith('refresh_token='),
          );
          const token = cookie?.slice('refresh_token='.length).split(';')[0];
          // An empty value is the cookie being cleared (a refused refresh): keep the last one.
          if (token) chain.token = token;
        },
      };
    },
  });
}

module.exports = { paced, pacedRefresh };
