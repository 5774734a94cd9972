import { Injectable } from '@nestjs/common';
import { WebhookConfig } from '../config/config.sections';
import { WebhookAddressPolicy } from './webhook-address.policy';
import { AttemptResult, Claimed } from './webhook-claims';
import { webhookSignature } from './webhook-signature';

/**
 * One attempt: a signed POST through Node's fetch, given up after WEBHOOK_TIMEOUT_MS. Only a 2xx
 * answer delivers; a redirect is not followed (it could lead anywhere) and counts as a failure,
 * as does an address the policy refuses now (its host may resolve elsewhere than when it was
 * saved). The answer's body is never read.
 */
@Injectable()
export class WebhookSender {
  constructor(
    private readonly config: WebhookConfig,
    private readonly addresses: WebhookAddressPolicy,
  ) {}

  async send(delivery: Claimed): Promise<AttemptResult> {
    const started = performance.now();
    const result = (statusCode: number | null, error: string | null): AttemptResult => ({
      statusCode,
      error,
      durationMs: performance.now() - started,
    });
    // One deadline for the address check (a DNS lookup) and the request together.
    const signal = AbortSignal.timeout(this.config.timeoutMs);
    try {
      const refused = await withinSignal(this.addresses.refusal(new URL(delivery.url)), signal);
      if (refused) return result(null, `Not sent: the endpoint ${refused}`);
      const timestamp = Math.floor(Date.now() / 1000);
      const response = await fetch(delivery.url, {
        method: 'POST',
        body: delivery.body,
        redirect: 'manual',
        signal,
        headers: {
          'Content-Type': 'application/json',
          'User-Agent': 'auth-service-webhooks',
          'webhook-id': delivery.id,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': webhookSignature(
            delivery.secrets,
            delivery.id,
            timestamp,
            delivery.body,
          ),
        },
      });
      await response.body?.cancel().catch(() => undefined);
      const ok = response.status >= 200 && response.status < 300;
      return result(response.status, ok ? null : `The receiver answered ${response.status}`);
    } catch (error) {
      return result(null, failure(error, this.config.timeoutMs));
    }
  }
}

function withinSignal<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
    work.then(resolve, reject);
  });
}

/** Why there was no answer, in words an administrator can act on (no stack, no secret). */
function failure(error: unknown, timeoutMs: number): string {
  if (error instanceof DOMException && error.name === 'TimeoutError') {
    return `No answer within ${timeoutMs} ms (WEBHOOK_TIMEOUT_MS)`;
  }
  const cause = (error as { cause?: { code?: unknown } }).cause;
  const code = typeof cause?.code === 'string' ? ` (${cause.code})` : '';
  return `The receiver could not be reached${code}`;
}
