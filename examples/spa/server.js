'use strict';
// The example single-page app, served on its own origin (default http://localhost:5173) and
// talking to the service on another (default http://localhost:3000/api/v1). No dependencies but
// the SDK's own (@simplewebauthn/browser, from node_modules):
//   npm run example:spa        (PORT, API_URL to change either)
const { createHash } = require('node:crypto');
const { readFileSync } = require('node:fs');
const { createServer } = require('node:http');
const { readFile } = require('node:fs/promises');
const { dirname, extname, join, normalize } = require('node:path');

const PUBLIC = join(__dirname, 'public');
const SDK = join(__dirname, '..', '..', 'client', 'dist');
// The SDK's one dependency, as the browser loads ES modules: its `esm` folder, which the page's
// import map names for the bare `@simplewebauthn/browser` (a bundler resolves it for a real app).
const VENDOR = {
  '/vendor/simplewebauthn-browser/': join(
    dirname(require.resolve('@simplewebauthn/browser')),
    '..',
    'esm',
  ),
};
/** The inline import map may run, and no other inline script: CSP names it by its hash. */
const IMPORT_MAP_HASH = (() => {
  const html = readFileSync(join(PUBLIC, 'index.html'), 'utf8');
  const map = /<script type="importmap">([\s\S]*?)<\/script>/.exec(html);
  if (!map) throw new Error('index.html has no import map');
  return `'sha256-${createHash('sha256').update(map[1]).digest('base64')}'`;
})();
const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/** Starts the page server; resolves with its URL and a `close()`. */
function startSpaServer({
  port = 5173,
  host = 'localhost',
  apiUrl = 'http://localhost:3000/api/v1',
} = {}) {
  // Parsed once: a malformed API_URL stops the server here, not on every request.
  const apiOrigin = new URL(apiUrl).origin;
  const server = createServer((req, res) => {
    serve(req.url || '/', apiUrl).then(
      ({ status, type, body }) => {
        res.writeHead(status, {
          'content-type': type,
          'cache-control': 'no-store',
          'x-content-type-options': 'nosniff',
          // A token in the address bar (an emailed link) must not travel in a Referer.
          'referrer-policy': 'no-referrer',
          // The page may talk to itself and to the service, nothing else.
          'content-security-policy': `default-src 'self'; script-src 'self' ${IMPORT_MAP_HASH}; connect-src 'self' ${apiOrigin}; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'`,
        });
        res.end(body);
      },
      () => {
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.end('Internal error');
      },
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const { port: actual } = server.address();
      resolve({
        url: `http://${host}:${actual}`,
        close: () =>
          new Promise((done) => {
            server.close(() => done());
            // Idle keep-alive connections would hold the port for seconds more.
            server.closeAllConnections();
          }),
      });
    });
  });
}

async function serve(rawUrl, apiUrl) {
  const path = new URL(rawUrl, 'http://page').pathname;
  if (path === '/config.js') {
    return {
      status: 200,
      type: TYPES['.js'],
      body: `export const API_URL = ${JSON.stringify(apiUrl)};\n`,
    };
  }
  const vendor = Object.keys(VENDOR).find((prefix) => path.startsWith(prefix));
  const file = path.startsWith('/sdk/')
    ? inside(SDK, path.slice('/sdk/'.length))
    : vendor
      ? inside(VENDOR[vendor], path.slice(vendor.length))
      : extname(path)
        ? inside(PUBLIC, path.slice(1))
        : join(PUBLIC, 'index.html'); // the app's own routes, e.g. /?token=… from the emailed link
  if (!file) return notFound();
  try {
    return {
      status: 200,
      type: TYPES[extname(file)] || 'application/octet-stream',
      body: await readFile(file),
    };
  } catch {
    return notFound();
  }
}

/** A path under `root`, or undefined for anything that climbs out of it. */
function inside(root, relative) {
  const file = normalize(join(root, relative));
  return file.startsWith(root + '/') ? file : undefined;
}

function notFound() {
  return { status: 404, type: 'text/plain; charset=utf-8', body: 'Not found' };
}

module.exports = { startSpaServer };

if (require.main === module) {
  startSpaServer({
    port: Number(process.env.PORT || 5173),
    apiUrl: process.env.API_URL || 'http://localhost:3000/api/v1',
  }).then(({ url, close }) => {
    console.log(`Example app on ${url}`);
    // Ctrl-C or a stop from npm: close the port and exit, leaving nothing behind.
    const stop = () => void close().then(() => process.exit(0));
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}
