import SMTPTransport from 'nodemailer/lib/smtp-transport';

import { isIP } from 'node:net';

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || (isIP(host) === 4 && host.startsWith('127.'));
}

/**
 * `smtp://user:pass@host:port` (or `smtps://`) → nodemailer options with timeouts, so a dead or
 * silent server fails a request within seconds instead of hanging it. Plain `smtp://` must
 * upgrade with STARTTLS (someone on the path could otherwise strip the offer and read reset
 * tokens and the SMTP password), except to a relay on this machine's loopback.
 */
export function smtpOptions(url: string, timeoutMs: number): SMTPTransport.Options {
  const parsed = new URL(url);
  const secure = parsed.protocol === 'smtps:';
  const user = decodeURIComponent(parsed.username);
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  return {
    host,
    port: parsed.port ? Number(parsed.port) : secure ? 465 : 587,
    secure,
    requireTLS: !secure && !isLoopback(host),
    auth: user ? { user, pass: decodeURIComponent(parsed.password) } : undefined,
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs * 2,
    dnsTimeout: timeoutMs,
  };
}
