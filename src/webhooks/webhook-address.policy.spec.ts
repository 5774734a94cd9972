import { WebhookConfig } from '../config/config.sections';
import { WebhookAddressPolicy, isInternalAddress } from './webhook-address.policy';

const production = (overrides: Partial<WebhookConfig> = {}) =>
  new WebhookAddressPolicy({
    timeoutMs: 5000,
    retrySchedule: [5],
    allowHttp: false,
    allowPrivateNetworks: false,
    ...overrides,
  });

async function refusal(policy: WebhookAddressPolicy, url: string): Promise<string | undefined> {
  try {
    await policy.check(url);
    return undefined;
  } catch (error) {
    return (error as { details: Array<{ message: string }> }).details[0].message;
  }
}

describe('where webhooks may be sent', () => {
  it('knows loopback, private, link-local and reserved addresses from public ones', () => {
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      '::',
      'fd00::1',
      'fe80::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      'not an address',
    ]) {
      expect([address, isInternalAddress(address)]).toEqual([address, true]);
    }
    for (const address of ['93.184.216.34', '8.8.8.8', '172.32.0.1', '2606:4700::1111']) {
      expect([address, isInternalAddress(address)]).toEqual([address, false]);
    }
  });

  it('takes https only in production, unless WEBHOOK_ALLOW_HTTP', async () => {
    expect(await refusal(production(), 'http://93.184.216.34/hook')).toBe(
      'url must be https:// (WEBHOOK_ALLOW_HTTP is off)',
    );
    expect(await refusal(production(), 'https://93.184.216.34/hook')).toBeUndefined();
    expect(
      await refusal(production({ allowHttp: true }), 'http://93.184.216.34/hook'),
    ).toBeUndefined();
    expect(await refusal(production(), 'ftp://93.184.216.34/hook')).toBe(
      'url must be an absolute http(s) URL',
    );
    expect(await refusal(production(), '/relative')).toBe('url must be an absolute http(s) URL');
    expect(await refusal(production(), 'https://user:pw@93.184.216.34/')).toBe(
      'url must not carry a user name or password',
    );
  });

  it('refuses the service’s own network in production, unless WEBHOOK_ALLOW_PRIVATE_NETWORKS', async () => {
    for (const url of [
      'https://127.0.0.1/hook',
      'https://localhost:8443/hook',
      'https://10.0.0.5/hook',
      'https://[::1]/hook',
      'https://169.254.169.254/latest/meta-data',
    ]) {
      expect([url, await refusal(production(), url)]).toEqual([
        url,
        'url reaches a loopback, private or reserved address (WEBHOOK_ALLOW_PRIVATE_NETWORKS is off)',
      ]);
    }
    expect(
      await refusal(production({ allowPrivateNetworks: true }), 'https://10.0.0.5/hook'),
    ).toBeUndefined();
    expect(await refusal(production(), 'https://no-such-host.invalid/hook')).toBe(
      'url has a host name that does not resolve',
    );
  });

  it('checks again before each attempt: a host may resolve elsewhere since it was saved', async () => {
    expect(await production().refusal(new URL('https://localhost/hook'))).toMatch(/loopback/);
    expect(
      await production({ allowPrivateNetworks: true }).refusal(new URL('https://localhost/')),
    ).toBeUndefined();
  });
});
