import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from './env.reader';
import { loadConfig } from './config.loader';

const BASE = {
  JWT_ACCESS_SECRET: 'a'.repeat(32),
  JWT_REFRESH_SECRET: 'b'.repeat(32),
  MFA_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
};
const GOOD = {
  id: 'corp',
  type: 'oidc',
  name: 'Corp',
  issuer: 'https://id.corp.example',
  client_id: 'c',
  client_secret: 's',
};

describe('AUTH_PROVIDERS', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'providers-spec-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  const load = (env: Record<string, string>) => loadConfig({ ...BASE, DATA_DIR: dataDir, ...env });
  const problemOf = (env: Record<string, string>): string => {
    try {
      load(env);
    } catch (error) {
      if (error instanceof ConfigError) return error.message;
      throw error;
    }
    throw new Error('the configuration was accepted');
  };

  it('is empty by default', () => {
    expect(load({}).federation.providers).toEqual([]);
  });

  it('knows the presets, with default scopes, and reads a file as well', () => {
    const list = [
      GOOD,
      { id: 'google', type: 'google', name: 'Google', client_id: 'g', client_secret: 's' },
      {
        id: 'entra',
        type: 'microsoft',
        name: 'Microsoft',
        tenant: '72F988BF-86F1-41AF-91AB-2D7CD011DB47',
        client_id: 'm',
        client_secret: 's',
        domains: ['Contoso.com'],
        sso_required: true,
      },
      { id: 'github', type: 'github', name: 'GitHub', client_id: 'h', client_secret: 's' },
    ];
    const file = join(dataDir, 'providers.json');
    writeFileSync(file, JSON.stringify(list));
    const sources: Array<Record<string, string>> = [
      { AUTH_PROVIDERS: JSON.stringify(list) },
      { AUTH_PROVIDERS_FILE: file },
    ];
    for (const env of sources) {
      const [corp, google, entra, github] = load(env).federation.providers;
      expect(corp).toMatchObject({
        issuer: 'https://id.corp.example',
        scopes: ['openid', 'email', 'profile'],
      });
      expect(google.issuer).toBe('https://accounts.google.com');
      expect(entra).toMatchObject({
        issuer: 'https://login.microsoftonline.com/72f988bf-86f1-41af-91ab-2d7cd011db47/v2.0',
        domains: ['contoso.com'],
        ssoRequired: true,
      });
      expect(github).toMatchObject({
        issuer: undefined,
        scopes: ['read:user', 'user:email'],
        github: { api: 'https://api.github.com' },
      });
    }
  });

  it('names every bad entry, with each of its problems, in one line', () => {
    const message = problemOf({
      AUTH_PROVIDERS: JSON.stringify([
        GOOD,
        { ...GOOD, id: 'noissuer', issuer: undefined },
        { ...GOOD, id: 'corp' },
        { id: 'Bad Id', type: 'saml', name: '', client_id: 'c' },
        { ...GOOD, id: 'plain', issuer: 'http://id.example.com', extra: 1 },
      ]),
      PORT: 'x',
    });
    expect(message).toContain('PORT');
    expect(message).toContain('entry 2 ("noissuer"): issuer is required for oidc');
    expect(message).toContain('entry 3 ("corp"): id "corp" is used twice');
    expect(message).toMatch(
      /entry 4 \("Bad Id"\): .*id must be.*type must be one of.*name must be.*client_secret must be/,
    );
    expect(message).toMatch(
      /entry 5 \("plain"\): unknown fields extra, issuer must be an https URL/,
    );
    expect(message).not.toContain('entry 1');
  });

  // Entra's discovery document names its issuer by the tenant's GUID whatever the URL it was
  // read from: an issuer built from the tenant's domain never matches, and every sign-in fails.
  it("takes only a tenant's GUID for the microsoft preset", () => {
    const entra = {
      id: 'entra',
      type: 'microsoft',
      name: 'Microsoft',
      client_id: 'm',
      client_secret: 's',
    };
    for (const tenant of ['contoso.onmicrosoft.com', 'common', '72f988bf-86f1-41af-91ab']) {
      expect(problemOf({ AUTH_PROVIDERS: JSON.stringify([{ ...entra, tenant }]) })).toContain(
        'entry 1 ("entra"): tenant must be the directory\'s id (a GUID)',
      );
    }
  });

  it('takes an http issuer on loopback only outside production, and test endpoints only for github', () => {
    const local = { ...GOOD, issuer: 'http://127.0.0.1:9000' };
    expect(load({ AUTH_PROVIDERS: JSON.stringify([local]) }).federation.providers).toHaveLength(1);
    const production = { NODE_ENV: 'production', MAIL_OUTBOX_DIR: dataDir };
    expect(problemOf({ ...production, AUTH_PROVIDERS: JSON.stringify([local]) })).toContain(
      'issuer must be an https URL',
    );
    const github = {
      id: 'gh',
      type: 'github',
      name: 'GitHub',
      client_id: 'h',
      client_secret: 's',
      endpoints: { api: 'http://127.0.0.1:9001' },
    };
    expect(
      load({ AUTH_PROVIDERS: JSON.stringify([github]) }).federation.providers[0].github,
    ).toEqual({
      authorization: 'https://github.com/login/oauth/authorize',
      token: 'https://github.com/login/oauth/access_token',
      api: 'http://127.0.0.1:9001',
    });
    expect(problemOf({ ...production, AUTH_PROVIDERS: JSON.stringify([github]) })).toContain(
      'endpoints is taken only by github, outside production',
    );
  });

  it('refuses what is not a JSON list, and a domain claimed twice', () => {
    expect(problemOf({ AUTH_PROVIDERS: '{' })).toContain('AUTH_PROVIDERS must be a JSON list');
    expect(problemOf({ AUTH_PROVIDERS_FILE: join(dataDir, 'none.json') })).toContain(
      'AUTH_PROVIDERS_FILE must name a readable file',
    );
    const twice = [
      { ...GOOD, domains: ['corp.example'] },
      { ...GOOD, id: 'other', domains: ['corp.example'] },
    ];
    expect(problemOf({ AUTH_PROVIDERS: JSON.stringify(twice) })).toContain(
      'domain corp.example belongs to another provider',
    );
    expect(
      problemOf({ AUTH_PROVIDERS: JSON.stringify([{ ...GOOD, sso_required: true }]) }),
    ).toContain('sso_required needs domains');
    // One domain however spelled: ſ is s to IDNA, and upper case is lower case.
    const spelled = [
      { ...GOOD, domains: ['strict.example'] },
      { ...GOOD, id: 'other', domains: ['ſTRICT.example'] },
    ];
    expect(problemOf({ AUTH_PROVIDERS: JSON.stringify(spelled) })).toContain(
      'domain strict.example belongs to another provider',
    );
  });

  it("takes an organization's slug, and refuses one that anyone on the internet could join", () => {
    expect(
      load({ AUTH_PROVIDERS: JSON.stringify([{ ...GOOD, organization: 'acme-corp' }]) }).federation
        .providers[0].organization,
    ).toBe('acme-corp');
    expect(
      problemOf({ AUTH_PROVIDERS: JSON.stringify([{ ...GOOD, organization: 'Acme Corp' }]) }),
    ).toContain("organization must be an organization's slug");
    const google = { ...GOOD, type: 'google', issuer: undefined, organization: 'acme-corp' };
    expect(problemOf({ AUTH_PROVIDERS: JSON.stringify([google]) })).toContain(
      'organization needs domains on google',
    );
    const withDomains = { ...google, domains: ['acme.example'] };
    expect(
      load({ AUTH_PROVIDERS: JSON.stringify([withDomains]) }).federation.providers[0].organization,
    ).toBe('acme-corp');
  });

  it('keeps each domain as IDNA reads it, in lower-case ASCII', () => {
    const list = [{ ...GOOD, domains: ['ſtrict.Example', 'Bücher.example'] }];
    expect(load({ AUTH_PROVIDERS: JSON.stringify(list) }).federation.providers[0].domains).toEqual([
      'strict.example',
      'xn--bcher-kva.example',
    ]);
  });
});
