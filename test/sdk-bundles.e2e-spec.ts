import { build, Metafile, Plugin } from 'esbuild';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

const ROOT = join(__dirname, '..');
const CLIENT = join(ROOT, 'client');
const PACKAGE = '@auth-service/client';
const EXPORTS = (
  JSON.parse(readFileSync(join(CLIENT, 'package.json'), 'utf8')) as {
    exports: Record<string, { import: string; types: string }>;
  }
).exports;

/** Each part of the SDK: its plugin, and the files it owns (what it adds to the session engine). */
const PARTS: Record<string, { plugin: string; files: string[] }> = {
  password: { plugin: 'password', files: ['client/src/password.ts'] },
  'email-code': { plugin: 'emailCode', files: ['client/src/email-code.ts'] },
  'second-factor': { plugin: 'secondFactor', files: ['client/src/second-factor.ts'] },
  passkeys: {
    plugin: 'passkeys',
    files: [
      'client/src/passkeys.ts',
      'client/src/passkey-ceremony.ts',
      'node_modules/@simplewebauthn/browser/',
    ],
  },
  'identity-providers': {
    plugin: 'identityProviders',
    files: ['client/src/identity-providers.ts'],
  },
  account: { plugin: 'account', files: ['client/src/account.ts'] },
  admin: { plugin: 'admin', files: ['client/src/admin.ts'] },
  organizations: { plugin: 'organizations', files: ['client/src/organizations.ts'] },
};
const partOf = (file: string) =>
  Object.keys(PARTS).find((part) => PARTS[part].files.some((owned) => file.startsWith(owned)));

/**
 * `@auth-service/client` and its subpaths resolved as a bundler resolves them, through the
 * package's `exports`, to the TypeScript each built file comes from.
 */
const sdkFromSource: Plugin = {
  name: 'sdk-from-source',
  setup(esbuild) {
    esbuild.onResolve({ filter: /^@auth-service\/client(\/|$)/ }, ({ path }) => {
      const entry = EXPORTS[`.${path.slice(PACKAGE.length)}`];
      if (!entry) return { errors: [{ text: `${path} is not among the package's exports` }] };
      const source = entry.import.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts');
      return { path: join(CLIENT, source) };
    });
  },
};

interface Bundle {
  bytes: number;
  gzipped: number;
  /** Minified bytes in the bundle of each file it took in, by path from the repository's root. */
  files: Map<string, number>;
}

/** An app as a bundler ships it to browsers: one ES module, minified. */
async function bundle(app: string): Promise<Bundle> {
  const result = await build({
    stdin: { contents: app, resolveDir: ROOT, loader: 'js' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2020',
    write: false,
    metafile: true,
    absWorkingDir: ROOT,
    logLevel: 'silent',
    plugins: [sdkFromSource],
  });
  const [output] = result.outputFiles;
  return {
    bytes: output.contents.byteLength,
    gzipped: gzipSync(output.contents, { level: 9 }).byteLength,
    files: inputsOf(result.metafile),
  };
}

function inputsOf(metafile: Metafile): Map<string, number> {
  const [output] = Object.values(metafile.outputs);
  return new Map(
    Object.entries(output.inputs).map(([file, { bytesInOutput }]) => [file, bytesInOutput]),
  );
}

/** The bytes a bundle holds of the given parts' own files. */
const bytesOf = (app: Bundle, parts: string[]) =>
  [...app.files].reduce((sum, [file, bytes]) => {
    const part = partOf(file);
    return part && parts.includes(part) ? sum + bytes : sum;
  }, 0);

const PASSWORD_ONLY = `
  import { createAuthClient, isSecondFactorRequired } from '@auth-service/client';
  import { password } from '@auth-service/client/password';

  const auth = createAuthClient({ baseUrl: '/api/v1', plugins: [password()] });
  export const status = () => auth.status();
  export const register = (input) => auth.password.register(input);
  export async function signIn(email, secret) {
    const result = await auth.password.signIn({ email, password: secret });
    return isSecondFactorRequired(result) ? null : result.data.user;
  }
  export const logOut = () => auth.logout();
  export const orders = () => auth.fetch('/orders');
`;

const EVERY_METHOD = `
  import { createAuthClient, isSecondFactorRequired } from '@auth-service/client';
  import { password } from '@auth-service/client/password';
  import { emailCode } from '@auth-service/client/email-code';
  import { secondFactor } from '@auth-service/client/second-factor';
  import { passkeys } from '@auth-service/client/passkeys';
  import { identityProviders } from '@auth-service/client/identity-providers';
  import { account } from '@auth-service/client/account';
  import { admin } from '@auth-service/client/admin';
  import { organizations } from '@auth-service/client/organizations';

  const auth = createAuthClient({
    baseUrl: '/api/v1',
    plugins: [
      password(), emailCode(), secondFactor(), passkeys(), identityProviders(), account(), admin(),
      organizations(),
    ],
  });
  export const status = () => auth.status();
  export const register = (input) => auth.password.register(input);
  export async function signIn(email, secret) {
    const result = await auth.password.signIn({ email, password: secret });
    return isSecondFactorRequired(result) ? null : result.data.user;
  }
  export const logOut = () => auth.logout();
  export const orders = () => auth.fetch('/orders');
  export const mailCode = (email) => auth.emailCode.request({ email });
  export const secondStep = (challenge, code) => auth.secondFactor.verify({ challenge, code });
  export const withPasskey = () => auth.passkeys.signIn();
  export const providers = () => auth.identityProviders.list();
  export const profile = () => auth.account.getProfile();
  export const users = () => auth.admin.listUsers();
  export const teams = () => auth.organizations.list();
`;

/** An app that uses one part of the SDK alone, besides the session engine. */
const onePart = (part: string) => `
  import { createAuthClient } from '${PACKAGE}';
  import { ${PARTS[part].plugin} } from '${PACKAGE}/${part}';
  export const auth = createAuthClient({ baseUrl: '/api/v1', plugins: [${PARTS[part].plugin}()] });
`;

/**
 * Issue 34: the SDK splits as the service does, a session engine and one entry point per way in
 * and per area, so that an app that signs in with a password alone ships no passkey and no
 * second-factor code. Bundled with esbuild as a real app would be, through the package's exports.
 */
describe('the SDK bundled into an app', () => {
  let passwordOnly: Bundle;
  let everyMethod: Bundle;

  beforeAll(async () => {
    [passwordOnly, everyMethod] = await Promise.all([bundle(PASSWORD_ONLY), bundle(EVERY_METHOD)]);
    const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
    console.log(
      `password only: ${kb(passwordOnly.bytes)} minified, ${kb(passwordOnly.gzipped)} gzipped; ` +
        `every method: ${kb(everyMethod.bytes)} minified, ${kb(everyMethod.gzipped)} gzipped; ` +
        `passkey and second-factor code: ${kb(bytesOf(everyMethod, ['passkeys', 'second-factor']))}`,
    );
  });

  it('ships no passkey or second-factor code in an app that signs in with a password alone', () => {
    const shipped = [...passwordOnly.files.keys()].filter((file) => partOf(file) !== undefined);
    expect(shipped).toEqual(['client/src/password.ts']);
  });

  it('makes the password-only app smaller by at least the passkey and second-factor code', () => {
    const passkeyAndSecondFactor = bytesOf(everyMethod, ['passkeys', 'second-factor']);
    // Measured, not assumed: the browser's WebAuthn library alone is kilobytes.
    expect(passkeyAndSecondFactor).toBeGreaterThan(4096);
    expect(everyMethod.bytes - passwordOnly.bytes).toBeGreaterThanOrEqual(passkeyAndSecondFactor);
    // And by the code of every part it leaves out: none of it rides along with the engine.
    const leftOut = Object.keys(PARTS).filter((part) => part !== 'password');
    expect(everyMethod.bytes - passwordOnly.bytes).toBeGreaterThanOrEqual(
      bytesOf(everyMethod, leftOut),
    );
  });

  it('has an entry point per part, each bringing the session engine and nothing of another part', async () => {
    expect(Object.keys(EXPORTS).sort()).toEqual(
      ['.', ...Object.keys(PARTS).map((part) => `./${part}`)].sort(),
    );
    const engineAlone = await bundle(`export * from '${PACKAGE}';`);
    expect([...engineAlone.files.keys()].filter((file) => partOf(file))).toEqual([]);
    for (const part of Object.keys(PARTS)) {
      const app = await bundle(onePart(part));
      const others = [...app.files.keys()].filter((file) => (partOf(file) ?? part) !== part);
      expect({ part, others }).toEqual({ part, others: [] });
      expect(bytesOf(app, [part])).toBeGreaterThan(0);
    }
  });
});
