import { FastifyInstance, FastifyRequest } from 'fastify';
import { AppException } from '../errors/app.exception';

export const MAX_BODY_BYTES = 5 * 1024 * 1024;

/**
 * Stands in for a body that was not valid JSON, so the validation pipe (which sees only the body)
 * can answer it with the DTO's own error code.
 */
export const MALFORMED_BODY: object = Object.freeze({});

const CHARSET = /;\s*charset\s*=\s*"?([^";\s]+)"?/i;

/** A body we cannot read as UTF-8 JSON text: compressed, or in another character set. */
function unreadable(req: FastifyRequest): boolean {
  const encoding = req.headers['content-encoding'];
  if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') return true;
  const charset = CHARSET.exec(req.headers['content-type'] ?? '')?.[1].toLowerCase();
  return charset !== undefined && charset !== 'utf-8' && charset !== 'utf8';
}

/**
 * JSON is the only body type: any other is refused with 415 by Fastify itself (this also keeps
 * HTML forms from posting cross-site), a body over 5 MB with 413. Text that is not valid JSON is
 * marked rather than refused here, so each route answers it with its own error code.
 */
export function registerJsonBody(fastify: FastifyInstance): void {
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser(
    'application/json',
    { parseAs: 'string', bodyLimit: MAX_BODY_BYTES },
    (req, text, done) => {
      if (unreadable(req)) return done(new AppException('UNSUPPORTED_MEDIA_TYPE'), undefined);
      if (text === '') return done(null, undefined);
      let body: unknown;
      try {
        body = JSON.parse(text as string);
      } catch {
        body = MALFORMED_BODY;
      }
      done(null, body);
    },
  );
}
