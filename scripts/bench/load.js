'use strict';
// Load helpers for the bench: autocannon runs reduced to the figures the report needs.
const http = require('node:http');
const autocannon = require('autocannon');

function runAutocannon(options) {
  return new Promise((resolve, reject) => {
    autocannon({ ...options, timeout: 30 }, (error, result) => {
      if (error) return reject(error);
      const seconds = result.duration || options.duration;
      resolve({
        rps: result['2xx'] / seconds,
        ok: result['2xx'] / seconds,
        p50: result.latency.p50,
        p99: result.latency.p99,
        failures: result.non2xx + result.errors + result.timeouts,
      });
    });
  });
}

/** verify-token at a fixed request rate, for latency under a steady load (not at saturation). */
async function verifyAtRate(server, rate, duration) {
  const { access } = await server.session();
  return runAutocannon({
    url: `${server.url}/api/v1/auth/verify-token`,
    connections: 10,
    overallRate: rate,
    duration,
    headers: { authorization: `Bearer ${access}` },
  });
}

function jsonPost(url, body, headers = {}) {
  return new Promise((resolve, reject) => {
    const payload = JSON.stringify(body);
    const req = http.request(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
          ...headers,
        },
      },
      (res) => {
        const chunks = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          if (res.statusCode >= 300)
            return reject(new Error(`${url} answered ${res.statusCode}: ${text}`));
          resolve(JSON.parse(text));
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/**
 * Resolves once `url` answers 200, polling every `everyMs` (the scale bench times start-ups with
 * a short one); rejects if `child` exits or nothing answers within `withinMs`.
 */
async function waitForHealth(url, child, { everyMs = 200, withinMs = 20_000 } = {}) {
  const deadline = Date.now() + withinMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}`);
    const ok = await new Promise((resolve) => {
      http
        .get(url, (res) => {
          res.resume();
          resolve(res.statusCode === 200);
        })
        .on('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  throw new Error(`${url} did not answer`);
}

/**
 * An autocannon `setupClient` for refresh chains: each connection starts from `firstToken()` and
 * then sends the refresh token its previous response set, as a browser does. `onToken` hears each
 * new one (a connection that reconnects can start from the newest).
 */
function followRefreshChain(firstToken, onToken = () => {}) {
  return (client) => {
    const use = (token) => client.setHeaders({ cookie: `refresh_token=${token}` });
    use(firstToken());
    client.on('headers', ({ headers }) => {
      for (let i = 0; i < headers.length; i += 2) {
        if (
          headers[i].toLowerCase() === 'set-cookie' &&
          headers[i + 1].startsWith('refresh_token=')
        ) {
          const token = headers[i + 1].slice('refresh_token='.length).split(';')[0];
          // An empty value is the cookie being cleared (a refused refresh): keep the last one.
          if (token) {
            use(token);
            onToken(token);
          }
        }
      }
    });
  };
}

/**
 * POSTs to `url` back to back on each of `connections` for `duration` seconds, each request's
 * JSON body from `nextBody()` (a new user to register, the next user to log in as). `headers`
 * are added to the JSON content type.
 */
function postEach({ url, connections, duration, nextBody, headers = {} }) {
  return runAutocannon({
    url,
    method: 'POST',
    connections,
    duration,
    headers: { 'content-type': 'application/json', ...headers },
    requests: [{ setupRequest: (request) => ({ ...request, body: JSON.stringify(nextBody()) }) }],
  });
}

module.exports = {
  runAutocannon,
  verifyAtRate,
  jsonPost,
  waitForHealth,
  followRefreshChain,
  postEach,
};
