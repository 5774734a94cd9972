import { expectError } from './support/auth-helpers';
import { TestApp, startTestApp } from './support/test-app';

const DOCS = '/api/v1/docs';
const DOCUMENT = '/api/docs-json';
const PAGE_POLICY =
  "default-src 'self';img-src 'self' data:;style-src 'self' 'unsafe-inline';frame-ancestors 'none'";
const API_POLICY = "default-src 'none';frame-ancestors 'none'";

/** An answer with its body as text, whatever its type (supertest parses only a few). */
async function getText(
  t: TestApp,
  path: string,
): Promise<{
  status: number;
  headers: Record<string, string>;
  text: string;
}> {
  const response = await t
    .http()
    .get(path)
    .buffer(true)
    .parse((res, callback) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => callback(null, text));
    });
  return {
    status: response.status,
    headers: response.headers,
    text: response.body as string,
  };
}

/** The addresses a page loads (`src`, `href`), as written in it. */
function addressesIn(html: string): string[] {
  return [...html.matchAll(/\s(?:src|href)\s*=\s*["']([^"']*)["']/gi)].map((match) => match[1]);
}

describe('the API reference (Swagger UI)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('serves a page at /api/v1/docs, without credentials, that loads only its own files', async () => {
    const page = await getText(t, DOCS);
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.text).toContain('<title>Auth Service API</title>');
    expect(page.headers['content-security-policy']).toBe(PAGE_POLICY);

    const addresses = addressesIn(page.text);
    expect(addresses).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/swagger-ui-bundle\.js$/),
        expect.stringMatching(/swagger-ui\.css$/),
        expect.stringMatching(/swagger-ui-init\.js$/),
      ]),
    );
    for (const address of addresses) {
      // Relative to the page: no scheme, no other host, nothing a CDN would serve.
      expect(address).not.toMatch(/^([a-z][a-z\d+.-]*:|\/\/)/i);
      const asset = await getText(t, new URL(address, `http://service${DOCS}`).pathname);
      expect({ address, status: asset.status }).toEqual({ address, status: 200 });
      expect(asset.headers['content-security-policy']).toBe(PAGE_POLICY);
      expect(asset.text.length).toBeGreaterThan(0);
    }
  });

  it('shows the very document the service serves at /api/docs-json', async () => {
    const init = await getText(t, `${DOCS}/swagger-ui-init.js`);
    expect(init.headers['content-type']).toMatch(/javascript/);
    const options = /let options = (\{[\s\S]*?\n\});\n/.exec(init.text)?.[1];
    const { swaggerDoc, customOptions } = JSON.parse(options ?? 'null') as {
      swaggerDoc: object;
      customOptions: Record<string, unknown>;
    };
    const document = await t.http().get(DOCUMENT).expect(200);
    expect(swaggerDoc).toEqual(document.body);
    // No badge fetched from validator.swagger.io.
    expect(customOptions.validatorUrl).toBeNull();
  });

  it('leaves the API its own policy, and serves nothing at the old or YAML addresses', async () => {
    const document = await t.http().get(DOCUMENT).expect(200);
    expect(document.headers['content-security-policy']).toBe(API_POLICY);
    const health = await t.http().get('/api/v1/health').expect(200);
    expect(health.headers['content-security-policy']).toBe(API_POLICY);
    for (const path of ['/api/docs', '/api/docs-yaml', `${DOCS}-json`, `${DOCS}/LICENSE`]) {
      expectError(await t.http().get(path), 404, 'NOT_FOUND');
    }
  });
});

describe('the API reference and the rate limit', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ THROTTLE_LIMIT: '3', THROTTLE_TTL: '900' });
  });
  afterAll(() => t.close());

  it('counts each view of the page and each read of the document in the general limit', async () => {
    for (const view of [DOCS, `${DOCS}/`]) {
      const page = await getText(t, view);
      expect(page.status).toBe(200);
      // The page's own files are not counted: they come with every view.
      for (const address of addressesIn(page.text)) {
        const asset = await getText(t, new URL(address, `http://service${view}`).pathname);
        expect({ address, status: asset.status }).toEqual({ address, status: 200 });
      }
    }
    await t.http().get(DOCUMENT).expect(200);
    const over = await t.http().get('/API/V1/DOCS');
    expectError(over, 429, 'RATE_LIMITED');
    expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
    expectError(await t.http().get(DOCUMENT), 429, 'RATE_LIMITED');
    // One budget per address: the API's routes are past it too.
    expectError(await t.http().get('/api/v1/auth/verify-token'), 429, 'RATE_LIMITED');
  });
});

describe('the API reference turned off', () => {
  it('is the 404 of any unknown path in production, unless API_DOCS=true', async () => {
    const production = await startTestApp({ NODE_ENV: 'production' });
    try {
      for (const path of [DOCS, `${DOCS}/swagger-ui-init.js`, DOCUMENT]) {
        expectError(await production.http().get(path), 404, 'NOT_FOUND');
      }
    } finally {
      await production.close();
    }
    const asked = await startTestApp({ NODE_ENV: 'production', API_DOCS: 'true' });
    try {
      const page = await getText(asked, DOCS);
      expect(page.status).toBe(200);
      expect(page.headers['content-security-policy']).toBe(PAGE_POLICY);
      await asked.http().get(DOCUMENT).expect(200);
    } finally {
      await asked.close();
    }
  });

  it('answers 404 outside production with API_DOCS=false', async () => {
    const t = await startTestApp({ API_DOCS: 'false' });
    try {
      for (const path of [DOCS, `${DOCS}/swagger-ui-bundle.js`, DOCUMENT]) {
        expectError(await t.http().get(path), 404, 'NOT_FOUND');
      }
    } finally {
      await t.close();
    }
  });
});
