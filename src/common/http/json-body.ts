import { IncomingHttpHeaders } from 'node:http';

export const MAX_BODY_BYTES = 5 * 1024 * 1024;

/**
 * Stands in for a body that was not valid JSON, so the validation pipe (which sees only the body)
 * can answer it with the DTO's own error code.
 */
export const MALFORMED_BODY: object = Object.freeze({});

const JSON_TYPE = /^application\/json\s*(;|$)/i;
const CHARSET = /;\s*charset\s*=\s*"?([^";\s]+)"?/i;

function isJsonType(headers: IncomingHttpHeaders): boolean {
  return JSON_TYPE.test(headers['content-type'] ?? '');
}

/**
 * `415` before anything is read, on every path (known routes and 404s alike): a request of a
 * method that takes a body, naming a content type that is not JSON, or sending a body without
 * naming one. JSON is the only body type (this also keeps HTML forms from posting cross-site).
 */
export function refusesMediaType(method: string, headers: IncomingHttpHeaders): boolean {
  if (method === 'GET' || method === 'HEAD') return false;
  if (headers['content-type'] !== undefined) return !isJsonType(headers);
  const length = headers['content-length'];
  return headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** A body we cannot read as UTF-8 JSON text: compressed, or in another character set. */
export function isUnreadableBody(headers: IncomingHttpHeaders): boolean {
  const encoding = headers['content-encoding'];
  if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') return true;
  const charset = CHARSET.exec(headers['content-type'] ?? '')?.[1].toLowerCase();
  return charset !== undefined && charset !== 'utf-8' && charset !== 'utf8';
}

/**
 * The body of a JSON request: undefined when empty, MALFORMED_BODY when not valid JSON (each
 * route answers that with its own error code), the parsed value otherwise.
 */
export function parseJsonText(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return MALFORMED_BODY;
  }
}
