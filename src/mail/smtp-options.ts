import SMTPTransport from 'nodemailer/lib/smtp-transport';

/**
 * `smtp://user:pass@host:port` (or `smtps://`) → nodemailer options with timeouts, so a dead or
 * silent server fails a request within seconds instead of hanging it.
 */
export function smtpOptions(url: string, timeoutMs: number): SMTPTransport.Options {
  const parsed = new URL(url);
  const secure = parsed.protocol === 'smtps:';
  const user = decodeURIComponent(parsed.username);
  return {
    host: parsed.hostname.replace(/^\[|\]$/g, ''),
    port: parsed.port ? Number(parsed.port) : secure ? 465 : 587,
    secure,
    auth: user ? { user, pass: decodeURIComponent(parsed.password) } : undefined,
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs * 2,
    dnsTimeout: timeoutMs,
  };
}
