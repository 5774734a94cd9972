import { createHmac, randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';

/** A new endpoint secret, as Standard Webhooks spells them: `whsec_` and 32 random bytes. */
export function newWebhookSecret(): string {
  return `${PREFIX}${randomBytes(32).toString('base64')}`;
}

/**
 * The `webhook-signature` header: `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` under each
 * secret given (during a rotation the new and the previous one), space-separated.
 */
export function webhookSignature(
  secrets: readonly string[],
  id: string,
  timestamp: number,
  body: string,
): string {
  return secrets
    .map((secret) => {
      const key = Buffer.from(secret.slice(PREFIX.length), 'base64');
      const mac = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
      return `v1,${mac}`;
    })
    .join(' ');
}
