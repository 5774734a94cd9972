import { readFileSync } from 'node:fs';
import {
  FederationConfig,
  IdentityProvider,
  PROVIDER_TYPES,
  ProviderType,
} from './config.sections';
import { EnvReader } from './env.reader';
import { SLUG_PATTERN } from '../organizations/slug';
import { normalizeDomain } from './sso-domains';

const ID = /^[a-z0-9][a-z0-9_-]{0,31}$/;
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DOMAIN = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);
const FIELDS = new Set([
  'id',
  'type',
  'name',
  'issuer',
  'tenant',
  'client_id',
  'client_secret',
  'scopes',
  'domains',
  'sso_required',
  'organization',
  'endpoints',
]);
const GITHUB_ENDPOINTS = {
  authorization: 'https://github.com/login/oauth/authorize',
  token: 'https://github.com/login/oauth/access_token',
  api: 'https://api.github.com',
};

/**
 * AUTH_PROVIDERS (a JSON list) or AUTH_PROVIDERS_FILE (a path to one): the identity providers
 * people may sign in with. Every bad entry is named in the one boot line (its position and id),
 * with each of its problems, so an operator fixes the list in one pass. The presets know their
 * issuer (Google), derive it from a tenant (Microsoft Entra ID) or speak GitHub's OAuth 2.
 * `endpoints` (GitHub's three addresses) exists for tests and is refused in production.
 */
export function readIdentityProviders(read: EnvReader, production: boolean): FederationConfig {
  const variable = read.string('AUTH_PROVIDERS') ? 'AUTH_PROVIDERS' : 'AUTH_PROVIDERS_FILE';
  const text = loadText(read);
  if (text === undefined) return { providers: [] };
  let list: unknown;
  try {
    list = JSON.parse(text);
  } catch {
    read.report(variable, 'must be a JSON list of providers');
    return { providers: [] };
  }
  if (!Array.isArray(list)) {
    read.report(variable, 'must be a JSON list of providers');
    return { providers: [] };
  }
  const providers: IdentityProvider[] = [];
  const bad: string[] = [];
  const seenIds = new Set<string>();
  const seenDomains = new Set<string>();
  list.forEach((item: unknown, index) => {
    const problems: string[] = [];
    const provider = readEntry(item, production, problems);
    if (provider && seenIds.has(provider.id)) problems.push(`id "${provider.id}" is used twice`);
    for (const domain of provider?.domains ?? []) {
      if (seenDomains.has(domain)) problems.push(`domain ${domain} belongs to another provider`);
    }
    if (provider && problems.length === 0) {
      seenIds.add(provider.id);
      provider.domains.forEach((domain) => seenDomains.add(domain));
      providers.push(provider);
      return;
    }
    const label = isObject(item) && typeof item.id === 'string' ? ` ("${item.id}")` : '';
    bad.push(`entry ${index + 1}${label}: ${problems.join(', ')}`);
  });
  if (bad.length > 0) read.report(variable, `has bad entries: ${bad.join('; ')}`);
  return { providers };
}

function loadText(read: EnvReader): string | undefined {
  const inline = read.string('AUTH_PROVIDERS');
  const file = read.string('AUTH_PROVIDERS_FILE');
  if (inline !== undefined && file !== undefined) {
    read.report('AUTH_PROVIDERS_FILE', 'cannot be set together with AUTH_PROVIDERS');
    return undefined;
  }
  if (file === undefined) return inline;
  try {
    return readFileSync(file, 'utf8');
  } catch {
    read.report('AUTH_PROVIDERS_FILE', `must name a readable file (got "${file}")`);
    return undefined;
  }
}

function readEntry(
  item: unknown,
  production: boolean,
  problems: string[],
): IdentityProvider | undefined {
  if (!isObject(item)) {
    problems.push('must be an object');
    return undefined;
  }
  const unknown = Object.keys(item).filter((key) => !FIELDS.has(key));
  if (unknown.length > 0) problems.push(`unknown fields ${unknown.join(', ')}`);
  const text = (key: string, required = true): string | undefined => {
    const value = item[key];
    if (typeof value === 'string' && value.trim()) return value.trim();
    if (value !== undefined || required) problems.push(`${key} must be a non-empty string`);
    return undefined;
  };
  const id = text('id');
  if (id !== undefined && !ID.test(id)) {
    problems.push('id must be lower-case letters, digits, - or _ (at most 32)');
  }
  const type = text('type') as ProviderType | undefined;
  if (type !== undefined && !PROVIDER_TYPES.includes(type)) {
    problems.push(`type must be one of ${PROVIDER_TYPES.join(', ')}`);
  }
  const name = text('name');
  const clientId = text('client_id');
  const clientSecret = text('client_secret');
  const issuer = readIssuer(item, type, production, problems, text);
  const scopes = list(item, 'scopes', problems) ?? defaultScopes(type);
  if (type !== 'github' && type !== undefined && !scopes.includes('openid')) {
    problems.push('scopes must include openid');
  }
  const listed = list(item, 'domains', problems) ?? [];
  // Kept as IDNA reads them, as addresses are matched (normalizeDomain).
  const domains = listed.map((domain) => normalizeDomain(domain) ?? '');
  const badDomain = listed.find((_, index) => !DOMAIN.test(domains[index]));
  if (badDomain !== undefined) problems.push(`domains has an invalid domain "${badDomain}"`);
  const ssoRequired = item.sso_required ?? false;
  if (typeof ssoRequired !== 'boolean') problems.push('sso_required must be true or false');
  if (ssoRequired === true && domains.length === 0) problems.push('sso_required needs domains');
  const organization = text('organization', false);
  if (organization !== undefined && !SLUG_PATTERN.test(organization)) {
    problems.push("organization must be an organization's slug (3-48 of a-z, 0-9 and -)");
  }
  // Google and GitHub sign in anyone with an account there: only `domains` say who is the
  // organization's.
  if (organization !== undefined && (type === 'google' || type === 'github') && !domains.length) {
    problems.push(`organization needs domains on ${type} (anyone can sign in there)`);
  }
  const endpoints = readEndpoints(item, type, production, problems);
  if (problems.length > 0) return undefined;
  return {
    id: id!,
    type: type!,
    name: name!,
    issuer,
    clientId: clientId!,
    clientSecret: clientSecret!,
    scopes,
    domains,
    ssoRequired: ssoRequired === true,
    organization,
    github: type === 'github' ? endpoints : undefined,
  };
}

function readIssuer(
  item: Record<string, unknown>,
  type: ProviderType | undefined,
  production: boolean,
  problems: string[],
  text: (key: string, required?: boolean) => string | undefined,
): string | undefined {
  if (type === 'github') {
    if (item.issuer !== undefined) problems.push('issuer is not taken by github (OAuth 2)');
    return undefined;
  }
  const tenant = type === 'microsoft' ? text('tenant', false) : undefined;
  if (type !== 'microsoft' && item.tenant !== undefined) {
    problems.push('tenant is taken only by microsoft');
  }
  let issuer = text('issuer', false);
  if (type === 'google') issuer ??= 'https://accounts.google.com';
  if (type === 'microsoft' && tenant !== undefined) {
    // Entra's discovery document names the issuer by the tenant's GUID, whatever the URL it was
    // read from, and the issuer is checked: one built from a domain ("contoso.onmicrosoft.com")
    // or "common" would fail every sign-in, so only the GUID is taken.
    if (!GUID.test(tenant)) {
      problems.push("tenant must be the directory's id (a GUID), as Entra names its issuer");
      return undefined;
    }
    issuer ??= `https://login.microsoftonline.com/${tenant.toLowerCase()}/v2.0`;
  }
  if (issuer === undefined) {
    if (type === 'oidc') problems.push('issuer is required for oidc');
    if (type === 'microsoft') problems.push('tenant (or issuer) is required for microsoft');
    return undefined;
  }
  if (!acceptedUrl(issuer, production)) {
    problems.push(
      production
        ? 'issuer must be an https URL'
        : 'issuer must be an https URL (or http on localhost, 127.0.0.1 or [::1])',
    );
  }
  return issuer.replace(/\/+$/, '');
}

/** GitHub's addresses; other ones only outside production (a test's GitHub-shaped server). */
function readEndpoints(
  item: Record<string, unknown>,
  type: ProviderType | undefined,
  production: boolean,
  problems: string[],
): IdentityProvider['github'] {
  const given = item.endpoints;
  if (given === undefined) return GITHUB_ENDPOINTS;
  if (type !== 'github' || production || !isObject(given)) {
    problems.push('endpoints is taken only by github, outside production (tests)');
    return undefined;
  }
  const endpoints = { ...GITHUB_ENDPOINTS };
  for (const key of Object.keys(given)) {
    const value = given[key];
    if (!(key in endpoints) || typeof value !== 'string' || !acceptedUrl(value, production)) {
      problems.push(`endpoints.${key} must be one of authorization, token, api, as a URL`);
      continue;
    }
    endpoints[key as keyof typeof endpoints] = value.replace(/\/+$/, '');
  }
  return endpoints;
}

function acceptedUrl(value: string, production: boolean): boolean {
  try {
    const url = new URL(value);
    if (url.protocol === 'https:') return true;
    return url.protocol === 'http:' && !production && LOOPBACK.has(url.hostname);
  } catch {
    return false;
  }
}

function list(item: Record<string, unknown>, key: string, problems: string[]) {
  const value = item[key];
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || !value.every((entry) => typeof entry === 'string' && entry)) {
    problems.push(`${key} must be a list of strings`);
    return undefined;
  }
  return [...new Set(value as string[])];
}

function defaultScopes(type: ProviderType | undefined): string[] {
  return type === 'github' ? ['read:user', 'user:email'] : ['openid', 'email', 'profile'];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
