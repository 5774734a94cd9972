// Type-checked linting: floating promises and unsafe `any` flows are errors, not style.
import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * The SDK's parts (client/src), each an entry point of the package: the session engine imports
 * none of them, and none imports another, so an app ships only the parts it passes to
 * `createAuthClient` (test/sdk-bundles.e2e-spec.ts measures it).
 */
const SDK_PARTS = {
  password: ['password'],
  'email-code': ['email-code'],
  'second-factor': ['second-factor'],
  passkeys: ['passkeys', 'passkey-ceremony'],
  'identity-providers': ['identity-providers'],
  account: ['account'],
  admin: ['admin'],
};
const sdkPartFiles = (parts) => parts.flatMap((part) => SDK_PARTS[part]);
const sdkSeams = [
  [undefined, Object.keys(SDK_PARTS)],
  ...Object.keys(SDK_PARTS).map((part) => [part, Object.keys(SDK_PARTS).filter((p) => p !== part)]),
].map(([part, forbidden]) => ({
  files: part
    ? sdkPartFiles([part]).map((file) => `client/src/${file}.ts`)
    : ['client/src/**/*.ts'],
  ignores: part
    ? []
    : [
        ...sdkPartFiles(Object.keys(SDK_PARTS)).map((file) => `client/src/${file}.ts`),
        'client/src/**/*.spec.ts',
        'client/src/**/*.fakes.ts',
      ],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        paths: [
          ...sdkPartFiles(forbidden).map((file) => ({
            name: `./${file}.js`,
            message: part
              ? 'A part of the SDK imports no other part: what both need belongs to the session engine.'
              : 'The session engine names no part of the SDK: an app would ship it without using it.',
          })),
          ...(part === 'passkeys'
            ? []
            : [
                {
                  name: '@simplewebauthn/browser',
                  message: 'Only the passkeys part runs WebAuthn.',
                },
              ]),
        ],
      },
    ],
  },
}));

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '.test-build-*/**',
      'node_modules/**',
      'data/**',
      'coverage/**',
      '*.js',
      '*.mjs',
    ],
  },
  eslint.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      // `import type` erases a DTO class, so its decorators never run and the body goes unvalidated.
      '@typescript-eslint/consistent-type-imports': ['error', { prefer: 'no-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['test/**/*.ts', 'src/**/*.spec.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  {
    // Plain Node files (scripts, the bcrypt worker): linted without type information.
    files: ['scripts/**/*.js', 'src/**/*.js', 'examples/spa/server.js', 'test/support/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      sourceType: 'commonjs',
      globals: {
        require: 'readonly',
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        __dirname: 'readonly',
        setTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        module: 'writable',
      },
    },
    rules: {
      ...tseslint.configs.disableTypeChecked.rules,
      '@typescript-eslint/no-require-imports': 'off',
    },
  },
  {
    // The SDK is an ES module without decorators: type-only imports are erased, as they should be.
    files: ['client/src/**/*.ts'],
    rules: {
      '@typescript-eslint/consistent-type-imports': ['error', { prefer: 'type-imports' }],
    },
  },
  ...sdkSeams,
  {
    // The example app's page script: a browser module.
    files: ['examples/spa/public/**/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      sourceType: 'module',
      globals: {
        window: 'readonly',
        document: 'readonly',
        location: 'readonly',
        history: 'readonly',
        URLSearchParams: 'readonly',
        FormData: 'readonly',
        HTMLInputElement: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        navigator: 'readonly',
        URL: 'readonly',
        Blob: 'readonly',
      },
    },
  },
);
