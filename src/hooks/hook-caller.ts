import { Injectable } from '@nestjs/common';
import { createHmac, randomUUID } from 'node:crypto';
import { HooksConfig } from '../config/config.sections';
import { HookAnswerError } from './hook-answers';

/** An answer larger than this is no hook's answer. */
const MAX_ANSWER_BYTES = 64 * 1024;

/**
 * Calls a hook's URL as a webhook is sent (Standard Webhooks): a JSON `{ type, timestamp, data }`
 * POSTed with `webhook-id`, `webhook-timestamp` and `webhook-signature` (`v1,` and the base64
 * HMAC-SHA256 of `id.timestamp.body` under HOOK_SECRET), answered 2xx with JSON within
 * HOOK_TIMEOUT_MS. Anything else throws: a refused connection, a redirect, another status, a body
 * that is not JSON, or no answer in time.
 */
@Injectable()
export class HookCaller {
  constructor(private readonly config: HooksConfig) {}

  async call(url: string, type: string, data: unknown): Promise<unknown> {
    const id = `msg_${randomUUID()}`;
    const timestamp = Math.floor(Date.now() / 1000);
    const body = JSON.stringify({ type, timestamp: new Date().toISOString(), data });
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'webhook-id': id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': `v1,${this.sign(`${id}.${timestamp}.${body}`)}`,
      },
      body,
      // A redirect could lead the signed body anywhere, an http:// address included.
      redirect: 'error',
      signal: AbortSignal.timeout(this.config.timeoutMs),
    });
    const text = await response.text();
    if (response.status < 200 || response.status > 299) {
      throw new HookAnswerError(`answered ${response.status}`);
    }
    if (Buffer.byteLength(text) > MAX_ANSWER_BYTES) {
      throw new HookAnswerError(`answered more than ${MAX_ANSWER_BYTES} bytes`);
    }
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new HookAnswerError('answered something that is not JSON');
    }
  }

  private sign(content: string): string {
    return createHmac('sha256', this.config.secret!).update(content).digest('base64');
  }
}
