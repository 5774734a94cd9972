import { HOOK_FAILURE_MODES, HooksConfig } from './config.sections';
import { EnvReader } from './env.reader';

/** Standard Webhooks' secrets: `whsec_` and 24 to 64 random bytes in base64. */
const WHSEC = /^whsec_([A-Za-z0-9+/]+={0,2})$/;

/**
 * The blocking hooks' URLs, secret, deadline and failure mode. A URL follows the webhooks' rule
 * (https in production unless WEBHOOK_ALLOW_HTTP=true), and a URL without HOOK_SECRET is refused:
 * a receiver could not tell the service's calls from anyone's.
 */
export function readHooks(read: EnvReader, allowHttp: boolean): HooksConfig {
  const url = (name: string): string | undefined => {
    const raw = read.string(name);
    if (raw === undefined) return undefined;
    const protocol = protocolOf(raw);
    if (protocol !== 'https:' && protocol !== 'http:') {
      read.report(name, `must be an http(s) URL (got "${raw}")`);
    } else if (protocol === 'http:' && !allowHttp) {
      read.report(name, 'must be an https:// URL in production (or set WEBHOOK_ALLOW_HTTP=true)');
    }
    return raw;
  };
  const beforeUserCreatedUrl = url('HOOK_BEFORE_USER_CREATED');
  const customAccessTokenUrl = url('HOOK_CUSTOM_ACCESS_TOKEN');
  const secret = readSecret(read);
  if (secret === undefined && (beforeUserCreatedUrl || customAccessTokenUrl)) {
    read.report(
      'HOOK_SECRET',
      'is required when HOOK_BEFORE_USER_CREATED or HOOK_CUSTOM_ACCESS_TOKEN is set',
    );
  }
  return {
    beforeUserCreatedUrl,
    customAccessTokenUrl,
    secret,
    timeoutMs: read.int('HOOK_TIMEOUT_MS', 2000, 50, 30_000),
    failure: read.oneOf('HOOK_FAILURE', 'closed', HOOK_FAILURE_MODES),
  };
}

function readSecret(read: EnvReader): Buffer | undefined {
  const raw = read.string('HOOK_SECRET');
  if (raw === undefined) return undefined;
  const key = WHSEC.exec(raw)?.[1];
  const bytes = key === undefined ? undefined : Buffer.from(key, 'base64');
  if (bytes === undefined || bytes.length < 24 || bytes.length > 64) {
    // Never the value itself: it is a secret.
    read.report('HOOK_SECRET', 'must be whsec_ followed by 24 to 64 bytes in base64');
    return undefined;
  }
  return bytes;
}

function protocolOf(raw: string): string | undefined {
  try {
    return new URL(raw).protocol;
  } catch {
    return undefined;
  }
}
