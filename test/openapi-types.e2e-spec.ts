import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import ts from 'typescript';

/**
 * Issue 32: a browser integrator generates types from openapi.json (openapi-typescript), calls
 * the passkey routes through openapi-fetch and hands what they answer to @simplewebauthn/browser,
 * and what it answers back: all of it compiles under `strict` without a cast. The same page
 * against the document as it was (the options and the extension results a bare object) needs a
 * cast at each of those six places, so this test fails on it.
 */

const ROOT = resolve(__dirname, '..');
const OPENAPI_FILE = join(ROOT, 'openapi.json');

/** The page's passkey code, as the integrator writes it. */
const PAGE = `
import { startAuthentication, startRegistration } from '@simplewebauthn/browser';
import createClient from 'openapi-fetch';
import type { paths } from './api';

const api = createClient<paths>({ baseUrl: 'https://auth.example.com', credentials: 'include' });

export async function addPasskey(name: string): Promise<string | undefined> {
  const { data } = await api.POST('/api/v1/users/me/passkeys/options');
  if (!data) return undefined;
  const response = await startRegistration({ optionsJSON: data.data.options });
  const { data: added } = await api.POST('/api/v1/users/me/passkeys', { body: { response, name } });
  return added?.data.passkey.id;
}

export async function signInWithPasskey(): Promise<boolean> {
  const { data } = await api.POST('/api/v1/auth/passkey/options');
  if (!data) return false;
  const response = await startAuthentication({ optionsJSON: data.data.options });
  const { data: signedIn } = await api.POST('/api/v1/auth/passkey/verify', { body: { response } });
  return signedIn !== undefined;
}

export async function answerSecondStep(challenge: string): Promise<boolean> {
  const { data } = await api.POST('/api/v1/auth/mfa/passkey/options', { body: { challenge } });
  if (!data) return false;
  const passkey = await startAuthentication({ optionsJSON: data.data.options });
  const { data: done } = await api.POST('/api/v1/auth/mfa/verify', { body: { challenge, passkey } });
  return done !== undefined;
}
`;

/** The lines that needed a cast before the options and the responses were typed. */
const CAST_LINES = PAGE.split('\n')
  .map((line, index) => ({ line, number: index + 1 }))
  .filter(({ line }) => /optionsJSON|body: \{ (response|challenge, passkey)/.test(line))
  .map(({ number }) => number);

interface Problem {
  line: number;
  message: string;
}

/** Generates `api.d.ts` from `document` as the integrator would, and compiles the page. */
async function compilePage(document: object): Promise<Problem[]> {
  const dir = mkdtempSync(join(tmpdir(), 'openapi-types-'));
  try {
    writeFileSync(join(dir, 'openapi.json'), JSON.stringify(document));
    writeFileSync(join(dir, 'page.ts'), PAGE);
    const cli = join(ROOT, 'node_modules', 'openapi-typescript', 'bin', 'cli.js');
    await promisify(execFile)(process.execPath, [cli, 'openapi.json', '-o', 'api.d.ts'], {
      cwd: dir,
    });
    const program = ts.createProgram([join(dir, 'page.ts')], {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      types: [],
      // The page sits in a temp folder: its packages are this repository's, as installed.
      baseUrl: dir,
      paths: { '*': [join(ROOT, 'node_modules', '*')] },
    });
    return ts.getPreEmitDiagnostics(program).map((diagnostic) => ({
      line:
        diagnostic.file && diagnostic.start !== undefined
          ? diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start).line + 1
          : 0,
      message: ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'),
    }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The document as it was: the options and the extension results an open object. */
function withBareObjects(document: Document): Document {
  const copy = JSON.parse(JSON.stringify(document)) as Document;
  const bare = { type: 'object', additionalProperties: true };
  const schemas = copy.components.schemas;
  schemas.PasskeyCreationOptionsDataModel.properties!.options = bare;
  schemas.PasskeyRequestOptionsDataModel.properties!.options = bare;
  schemas.AuthenticationExtensionsClientOutputs = bare;
  return copy;
}

interface Document {
  components: { schemas: Record<string, { type?: string; properties?: Record<string, object> }> };
}

describe('a client generated from openapi.json, in a browser with @simplewebauthn/browser', () => {
  const document = JSON.parse(readFileSync(OPENAPI_FILE, 'utf8')) as Document;

  it('hands the passkey options to startRegistration and startAuthentication, and their answers back, without a cast', async () => {
    expect(CAST_LINES).toHaveLength(6);
    expect(await compilePage(document)).toEqual([]);
  }, 120_000);

  it('is a real check: against bare objects, each of those six places fails to compile', async () => {
    const problems = await compilePage(withBareObjects(document));
    expect([...new Set(problems.map((problem) => problem.line))].sort((a, b) => a - b)).toEqual(
      CAST_LINES,
    );
    expect(problems.map((problem) => problem.message).join('\n')).toMatch(
      /PublicKeyCredentialCreationOptionsJSON/,
    );
  }, 120_000);
});
