import { INestApplication } from '@nestjs/common';
import { ExpressAdapter, NestExpressApplication } from '@nestjs/platform-express';
import cookieParser from 'cookie-parser';
import express, { NextFunction, Request, RequestHandler, Response } from 'express';
import { Server } from 'node:http';
import { AppException } from '../common/errors/app.exception';
import { exceptionForStatus } from '../common/errors/all-exceptions.filter';
import { answerClientError } from '../common/errors/framework-errors';
import { AnswerObserver, pathOf } from '../common/http/answer';
import {
  MAX_BODY_BYTES,
  isJsonType,
  isUnreadableBody,
  parseJsonText,
} from '../common/http/json-body';
import {
  API_DOCS_SECURITY_POLICY,
  API_SECURITY_HEADERS,
  corsOptions,
} from '../common/http/security-headers';
import { trustFunction } from '../common/http/trust-proxy';
import { REQUEST_ID_HEADER, requestIdOf } from '../logging/request-id';
import { DOCS_PATH } from '../openapi/openapi.document';
import { HttpPlatformKit, PlatformSetup } from './platform-setup';

/** The default platform: @nestjs/platform-express. */
export function expressPlatform(): HttpPlatformKit {
  return {
    adapter: new StoppingExpressAdapter(),
    configure(nestApp: INestApplication, setup: PlatformSetup) {
      const app = nestApp as NestExpressApplication;
      const trust = trustFunction(setup.trustProxy);
      app.set('trust proxy', trust);
      app.disable('x-powered-by');
      // Answers are small, personal and not cacheable: hashing each body for an ETag is waste.
      app.set('etag', false);
      const server = app.getHttpServer();
      server.on('clientError', answerClientError);
      // A client trickling a request is cut off after a minute, as on Fastify.
      server.requestTimeout = 60_000;

      app.use(answerHeaders((address) => trust(address, 0), setup.observers));
      app.enableCors(corsOptions(setup.corsOrigins));
      if (setup.apiDocs) app.use(docsPolicy);
      app.use(refuseMalformedUrl);
      app.use(cookieParser());
      app.use(jsonBody());
      return Promise.resolve();
    },
    ready: () => Promise.resolve(),
  };
}

/**
 * While stopping, a keep-alive connection is closed as soon as its last request is answered:
 * one whose request was still running would otherwise hold the stop open for the whole
 * keep-alive timeout.
 */
class StoppingExpressAdapter extends ExpressAdapter {
  override close() {
    const server = this.getHttpServer() as Server | undefined;
    const sweeper = setInterval(() => server?.closeIdleConnections(), 50).unref();
    return Promise.resolve(super.close()).finally(() => clearInterval(sweeper));
  }
}

type WithId = Request & { id: string };

/**
 * The request's id, the API's security headers on every answer (errors and 404s included), and
 * the observers once it is answered.
 */
function answerHeaders(
  trusted: (address: string) => boolean,
  observers: AnswerObserver[],
): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const started = process.hrtime.bigint();
    const id = requestIdOf(req, trusted);
    (req as WithId).id = id;
    for (const [name, value] of Object.entries(API_SECURITY_HEADERS)) res.setHeader(name, value);
    res.setHeader(REQUEST_ID_HEADER, id);
    if (observers.length > 0) {
      res.once('finish', () => {
        const answer = {
          requestId: id,
          method: req.method,
          path: pathOf(req.originalUrl),
          route: (req.route as { path?: string } | undefined)?.path,
          status: res.statusCode,
          milliseconds: Number(process.hrtime.bigint() - started) / 1e6,
        };
        for (const observe of observers) observe(answer);
      });
    }
    next();
  };
}

/** Swagger UI is a web page: its routes get a page's policy, every other answer the API's. */
function docsPolicy(req: Request, res: Response, next: NextFunction): void {
  if (req.path.toLowerCase().startsWith(`/${DOCS_PATH}`)) {
    res.setHeader('content-security-policy', API_DOCS_SECURITY_POLICY);
  }
  next();
}

/** A path that does not decode is refused as Fastify's router refuses it. */
function refuseMalformedUrl(req: Request, _res: Response, next: NextFunction): void {
  try {
    decodeURI(pathOf(req.originalUrl));
  } catch {
    return next(new AppException('VALIDATION_ERROR', { message: 'The request URL is malformed' }));
  }
  next();
}

/**
 * JSON is the only body type: any other is refused with 415 (this also keeps HTML forms from
 * posting cross-site), a body over 5 MB with 413, a compressed or non-UTF-8 one with 415. Text
 * that is not valid JSON is marked rather than refused, so each route answers it with its own
 * error code (parseJsonText, as on Fastify).
 */
function jsonBody(): RequestHandler {
  const readText = express.text({ type: () => true, limit: MAX_BODY_BYTES, inflate: false });
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.method === 'GET' || req.method === 'HEAD') return next();
    const length = req.headers['content-length'];
    const hasBody =
      req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
    if (!isJsonType(req.headers)) {
      return next(hasBody ? new AppException('UNSUPPORTED_MEDIA_TYPE') : undefined);
    }
    if (isUnreadableBody(req.headers)) return next(new AppException('UNSUPPORTED_MEDIA_TYPE'));
    readText(req, res, (error?: unknown) => {
      if (error !== undefined) {
        const status = (error as { status?: unknown }).status;
        return next((typeof status === 'number' && exceptionForStatus(status)) || error);
      }
      req.body = parseJsonText(typeof req.body === 'string' ? req.body : '');
      next();
    });
  };
}
