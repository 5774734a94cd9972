import { json } from 'express';
import { NextFunction, Request, RequestHandler, Response } from 'express';
import { AppException } from '../errors/app.exception';

export const MAX_BODY_BYTES = 5 * 1024 * 1024;

/**
 * Stands in for a body that was not valid JSON, so the validation pipe (which sees only the body)
 * can answer it with the DTO's own error code.
 */
export const MALFORMED_BODY: object = Object.freeze({});

function hasBody(req: Request): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

function isJson(req: Request): boolean {
  const type = req.headers['content-type'];
  return type !== undefined && /^application\/json\s*(;|$)/i.test(type);
}

/**
 * Parses JSON bodies up to 5 MB. A body of any other type is refused with 415 (this also keeps
 * HTML forms from posting cross-site); a larger one with 413. A body that is not valid JSON is
 * marked rather than refused here, so each route answers it with its own error code.
 */
export function jsonBody(): RequestHandler {
  const parse = json({ limit: MAX_BODY_BYTES, strict: true });
  return (req: Request, res: Response, next: NextFunction) => {
    if (!hasBody(req)) return next();
    if (!isJson(req)) return next(new AppException('UNSUPPORTED_MEDIA_TYPE'));
    parse(req, res, (err?: unknown) => {
      if (err === undefined) return next();
      const type = (err as { type?: string }).type;
      if (type === 'entity.too.large') return next(new AppException('PAYLOAD_TOO_LARGE'));
      if (type === 'encoding.unsupported' || type === 'charset.unsupported') {
        return next(new AppException('UNSUPPORTED_MEDIA_TYPE'));
      }
      if (type === 'entity.parse.failed') {
        req.body = MALFORMED_BODY;
        return next();
      }
      // Aborted or broken uploads: nothing useful to tell the client beyond "invalid".
      return next(
        new AppException('VALIDATION_ERROR', { message: 'The request body could not be read' }),
      );
    });
  };
}
