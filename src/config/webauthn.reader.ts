import { WebAuthnConfig } from './config.sections';
import { EnvReader } from './env.reader';

/** Labels of letters, digits and hyphens: what a browser accepts as a relying-party id. */
const HOST_NAME =
  /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;
const IP_ADDRESS = /^(\d{1,3}(\.\d{1,3}){3}|\[.*\])$/;

/**
 * The passkeys' relying party. A browser binds each credential to the RP id and runs a ceremony
 * only on a page whose host is that id or under it, in a secure context (https, or http on
 * localhost); the service then accepts only the origins listed here. Explicit values that could
 * never work are refused at boot. The defaults are derived (the RP id from PUBLIC_URL's host, the
 * origins from APP_ORIGINS) and keep only the origins a browser could use with that id, so a
 * deployment that does not use passkeys never has to configure them.
 */
export function readWebAuthn(
  read: EnvReader,
  defaults: { publicUrl: string; appName: string; appOrigins: readonly string[] },
): WebAuthnConfig {
  const explicitId = read.string('WEBAUTHN_RP_ID')?.toLowerCase();
  if (explicitId !== undefined && (!HOST_NAME.test(explicitId) || IP_ADDRESS.test(explicitId))) {
    read.report(
      'WEBAUTHN_RP_ID',
      `must be a host name without scheme or port, such as example.com (got "${explicitId}")`,
    );
  }
  const rpId = explicitId ?? new URL(defaults.publicUrl).hostname;
  const explicitOrigins = read.string('WEBAUTHN_ORIGINS') !== undefined;
  const origins = read.origins('WEBAUTHN_ORIGINS', defaults.appOrigins);
  const unusable = origins.filter((origin) => !usableWith(origin, rpId));
  if (explicitOrigins && unusable.length > 0 && read.isValid('WEBAUTHN_ORIGINS')) {
    read.report(
      'WEBAUTHN_ORIGINS',
      `must be https (or http on localhost) origins on ${rpId} or its subdomains (got ${unusable.join(', ')})`,
    );
  }
  return {
    rpId,
    rpName: read.string('WEBAUTHN_RP_NAME') ?? defaults.appName,
    origins: origins.filter((origin) => usableWith(origin, rpId)),
  };
}

/** A page at `origin` can run a ceremony for `rpId`: a secure context on that host or under it. */
function usableWith(origin: string, rpId: string): boolean {
  const { protocol, hostname } = new URL(origin);
  const secure = protocol === 'https:' || hostname === 'localhost';
  return secure && (hostname === rpId || hostname.endsWith(`.${rpId}`));
}
