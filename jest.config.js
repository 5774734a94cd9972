// Unit specs live beside the code (src/…/*.spec.ts, client/src/…/*.spec.ts); e2e suites under
// test/ (*.e2e-spec.ts), the browser suite included.

/**
 * Suites that need MariaDB: several instances cannot share one embedded SQLite, and the outage
 * suites (the browser's too) cut a database server. Also the minute of load-balancer probes: it
 * needs no MariaDB, but the SQLite pass need not pay that minute.
 */
const NEEDS_MARIADB = [
  '/test/multi-instance',
  '/test/database-outage',
  '/test/repository-deadline',
  '/test/browser/sdk-database-outage',
  '/test/health-probes',
  '/test/revocation-race',
  '/test/sessions-multi-instance',
  '/test/redis-hang',
  '/test/shared-login-backoff',
  '/test/account-instances',
  '/test/second-factor-instances',
  '/test/passkeys-instances',
  '/test/identity-providers-instances',
  '/test/admin-multi-instance',
  '/test/mail-cap-instances',
  '/test/organizations-instances',
  '/test/webhooks-instances',
];

module.exports = {
  rootDir: '.',
  testEnvironment: 'node',
  moduleFileExtensions: ['js', 'json', 'ts'],
  testRegex: '(src|test)/.*\\.(spec|e2e-spec)\\.ts$',
  // One ts-jest configuration for every file: ts-jest shares its compiler between configurations
  // in a worker, so a second tsconfig (the SDK's, without decorators) leaked into the server's
  // files whenever its spec ran first. Jest only transpiles; `npm run typecheck` checks the SDK
  // and the browser suite against their own tsconfigs (DOM, ESM).
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }],
    '^.+/node_modules/.+\\.js$': '<rootDir>/test/support/esm-transform.js',
  },
  // Every package but the ES-module-only relying party (and what it imports) runs as installed.
  transformIgnorePatterns: ['^(?!.*/node_modules/(openid-client|oauth4webapi)/).*/node_modules/'],
  // The SDK imports `./x.js` as browsers need; under Jest that is the `./x.ts` beside it.
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  // The npm scripts' stop test builds and starts the service on its own embedded database: once,
  // in the SQLite pass, is enough.
  // The service's processes (crash, shutdown, several instances…) start from JavaScript
  // transpiled once per run (test/support/service-build.ts).
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  testPathIgnorePatterns: [
    '/node_modules/',
    ...(process.env.TEST_DATABASE_URL ? ['/test/npm-scripts'] : NEEDS_MARIADB),
  ],
  // TEST_SCOPE=mariadb (CI's Express + MariaDB pass): only the suites that need MariaDB. Every
  // other suite runs on Express + SQLite and on Fastify + MariaDB, so each test still meets each
  // platform and each database, without a third pass of the rest.
  ...(process.env.TEST_SCOPE === 'mariadb'
    ? { testRegex: `(${NEEDS_MARIADB.join('|')})[^/]*\\.e2e-spec\\.ts$` }
    : {}),
  testTimeout: 30000,
  // One MariaDB database or SQLite file per suite; two cores give two workers.
  maxWorkers: 2,
};
