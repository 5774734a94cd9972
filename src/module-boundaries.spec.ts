import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/**
 * Issue 34: the session core (src/auth) names no way in, and no way in imports another; each
 * registers itself with the core instead (SignInMethodRegistry). The imports the core still
 * takes of them are listed below as the known remainder: a new arrow fails, and so does one
 * listed that is gone (shorten the list).
 */
const ROOT = resolve(__dirname, '..');
const CORE = 'src/auth';
const METHODS: Record<string, string[]> = {
  password: ['src/password'],
  passkey: ['src/passkeys'],
  email_code: ['src/email-codes'],
  second_factor: ['src/second-factor'],
  identity_provider: ['src/identity-providers', 'src/linked-identities'],
  // Not a way in, but kept apart as one: the core names it nowhere.
  email_links: ['src/email-links'],
};

/**
 * What the core still imports of the ways in (the current password and the hasher stay in the
 * core: a change only the owner may make, and a reset link, confirm or set one):
 */
const KNOWN_REMAINDER = [
  // The bodies of `POST /auth/mfa/verify` and `POST /auth/reauthenticate`: one class each, for
  // the OpenAPI document, with every way in's field (the passkey's answer, the app's code).
  'src/auth/dto/reauthenticate.dto.ts -> src/passkeys/dto/authentication-response.dto.ts',
  'src/auth/dto/reauthenticate.dto.ts -> src/second-factor/dto/identity-proof.dto.ts',
  'src/auth/second-factor.controller.ts -> src/second-factor/dto/second-factor-verify.dto.ts',
  'src/second-factor/dto/second-factor-verify.dto.ts -> src/passkeys/dto/authentication-response.dto.ts',
  // A mailbox's first proof (an email link, a mailed code) unlinks the identities that address took over.
  'src/auth/mailbox-proof.service.ts -> src/linked-identities/linked-identities.service.ts',
  'src/auth/auth.module.ts -> src/linked-identities/linked-identities.module.ts',
];

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sources(path);
    return /\.ts$/.test(entry.name) && !/\.spec\.ts$/.test(entry.name) ? [path] : [];
  });
}

/** Each relative import of a file, as a path from the root (`.ts` added). */
function importsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const found = text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g);
  return [...found].map((match) => `${relative(ROOT, resolve(ROOT, dirname(file), match[1]))}.ts`);
}

const inside = (file: string, dirs: string[]) => dirs.some((dir) => file.startsWith(`${dir}/`));
const methodOf = (file: string) =>
  Object.keys(METHODS).find((method) => inside(file, METHODS[method]));

describe('module boundaries: the core names no method, and no method imports another', () => {
  const arrows = sources('src').flatMap((file) =>
    importsOf(file)
      .filter((target) => {
        const to = methodOf(target);
        if (to === undefined) return false;
        if (inside(file, [CORE])) return true;
        const from = methodOf(file);
        return from !== undefined && from !== to;
      })
      .map((target) => `${file} -> ${target}`),
  );

  it('has no arrow beyond the known remainder', () => {
    expect(arrows.filter((arrow) => !KNOWN_REMAINDER.includes(arrow))).toEqual([]);
  });

  it('lists no arrow that is gone', () => {
    expect(KNOWN_REMAINDER.filter((arrow) => !arrows.includes(arrow))).toEqual([]);
  });

  it.each([
    // Sign-in, the second step's and the step-up's options, the account's passkeys.
    ['passkey', /passkey/],
    // Sign-in by code or link, the step-up's code, the switch, the bodies.
    ['email_code', /email-code/],
    // Sign-in, registration, the change while signed in.
    [
      'password',
      /password-(login|sign-in|change\.)|password\.(way-in|controller)|registration(-mails)?\.service/,
    ],
  ])('keeps every file of %s (a way in moved) in its own folder', (method, named) => {
    const strays = sources('src').filter(
      (file) => named.test(file) && !inside(file, METHODS[method]) && !/migrations/.test(file),
    );
    expect(strays).toEqual([]);
  });

  it('sees the imports it judges (the reader works)', () => {
    expect(importsOf('src/passkeys/passkey-sign-in.service.ts')).toContain(
      'src/auth/auth.service.ts',
    );
  });
});
