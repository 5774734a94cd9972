// Unit specs live beside the code (src/…/*.spec.ts); e2e suites under test/ (*.e2e-spec.ts).
module.exports = {
  rootDir: '.',
  testEnvironment: 'node',
  moduleFileExtensions: ['js', 'json', 'ts'],
  testRegex: '(src|test)/.*\\.(spec|e2e-spec)\\.ts$',
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }],
  },
  testTimeout: 30000,
  // One MariaDB database or SQLite file per suite; two cores give two workers.
  maxWorkers: 2,
};
