import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/**
 * Issue 34: the session core (src/auth) names no way in, and no way in imports another; each
 * registers itself with the core instead (SignInMethodRegistry), or hears what the core
 * announces (src/events). An arrow from the core into a way in, or between two ways in, fails.
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

  it('has no arrow from the core into a way in, nor between two', () => {
    expect(arrows).toEqual([]);
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
