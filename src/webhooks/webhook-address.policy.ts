import { Injectable } from '@nestjs/common';
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { AppException } from '../common/errors/app.exception';
import { WebhookConfig } from '../config/config.sections';

/** Loopback, private, link-local, shared, benchmark, multicast and reserved ranges. */
const INTERNAL = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  INTERNAL.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 127],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
] as const) {
  INTERNAL.addSubnet(network, prefix, 'ipv6');
}

export function isInternalAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return INTERNAL.check(mapped[1], 'ipv4');
  const family = isIP(address);
  if (family === 0) return true;
  return INTERNAL.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * Where webhooks may be sent (docs/webhooks.md, "Addresses"). Only administrators name
 * endpoints; still, in production an endpoint must be `https://` (WEBHOOK_ALLOW_HTTP) and must
 * not reach the service's own network: every address its host resolves to is checked when it is
 * saved and again before each attempt (WEBHOOK_ALLOW_PRIVATE_NETWORKS lets an operator allow it).
 */
@Injectable()
export class WebhookAddressPolicy {
  constructor(private readonly config: WebhookConfig) {}

  /** The URL to store, or 400 VALIDATION_ERROR on `url` saying why not. */
  async check(text: string): Promise<string> {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw invalid('url must be an absolute http(s) URL');
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      throw invalid('url must be an absolute http(s) URL');
    }
    if (url.protocol === 'http:' && !this.config.allowHttp) {
      throw invalid('url must be https:// (WEBHOOK_ALLOW_HTTP is off)');
    }
    if (url.username || url.password) throw invalid('url must not carry a user name or password');
    const refused = await this.refusal(url);
    if (refused) throw invalid(`url ${refused}`);
    return url.toString();
  }

  /** Why an attempt at `url` must not be made now, or undefined when it may. */
  async refusal(url: URL): Promise<string | undefined> {
    if (this.config.allowPrivateNetworks) return undefined;
    const host = url.hostname.replace(/^\[|\]$/g, '');
    let addresses: string[];
    if (isIP(host)) {
      addresses = [host];
    } else {
      try {
        addresses = (await lookup(host, { all: true, verbatim: true })).map(
          (entry) => entry.address,
        );
      } catch {
        return 'has a host name that does not resolve';
      }
    }
    return addresses.some(isInternalAddress)
      ? 'reaches a loopback, private or reserved address (WEBHOOK_ALLOW_PRIVATE_NETWORKS is off)'
      : undefined;
  }
}

function invalid(message: string): AppException {
  return new AppException('VALIDATION_ERROR', { message, details: [{ field: 'url', message }] });
}
