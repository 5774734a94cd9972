import { relative, sep } from 'node:path';

/** The example app's defaults (examples/spa/server.js): where it serves, and the API it calls. */
const EXAMPLE_APP_URL = 'http://localhost:5173';
const EXAMPLE_API_URL = 'http://localhost:3000/api/v1';
const DEFAULT_OUTBOX = `.${sep}data${sep}mail`;

export interface Whereabouts {
  appName: string;
  /** `http://localhost:3000/api/v1`, with the port obtained. */
  apiUrl: string;
  platform: string;
  corsOrigins: readonly string[];
  outboxDir: string;
  smtpUrl: string | undefined;
}

/**
 * The first line a developer reads: where the service, the example app and the mail are. Names
 * the SMTP server by its address only: its URL may hold a password.
 */
export function startBanner(where: Whereabouts): string {
  const apiUrl = where.apiUrl === EXAMPLE_API_URL ? '' : `API_URL=${where.apiUrl} `;
  const allowed = where.corsOrigins.includes(EXAMPLE_APP_URL) ? '' : ' (add it to CORS_ORIGINS)';
  const example = `${apiUrl}npm run example:spa, then ${EXAMPLE_APP_URL}${allowed}`;
  return `${where.appName} on ${where.apiUrl} (${where.platform}) · example app: ${example} · mail: ${mailGoes(where)}`;
}

function mailGoes({ smtpUrl, outboxDir }: Whereabouts): string {
  if (smtpUrl !== undefined) {
    const server = new URL(smtpUrl);
    return `sent through ${server.protocol}//${server.host}`;
  }
  const inHere = relative(process.cwd(), outboxDir);
  const shown = inHere.startsWith('..') || inHere === '' ? outboxDir : `.${sep}${inHere}`;
  return shown === DEFAULT_OUTBOX
    ? `written to ${shown} (the newest: npm run -s mail:last)`
    : `written to ${shown}`;
}
