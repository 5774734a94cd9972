import { INestApplication } from '@nestjs/common';
import { ExpressAdapter, NestExpressApplication } from '@nestjs/platform-express';
import cookieParser from 'cookie-parser';
import cors from 'cors';
import express, { NextFunction, Request, RequestHandler, Response } from 'express';
import { Server } from 'node:http';
import { AppException } from '../common/errors/app.exception';
import { exceptionForStatus } from '../common/errors/all-exceptions.filter';
import { AnswerObserver, pathOf } from '../common/http/answer';
import {
  MAX_BODY_BYTES,
  isUnreadableBody,
  parseJsonText,
  refusesMediaType,
} from '../common/http/json-body';
import { isApiDocsPage, isApiDocsVisit } from '../openapi/api-docs';
import { answerClientError } from './client-errors';
import { drainRequest } from './request-drain';
import {
  HttpPlatformKit,
  KEEP_ALIVE_MS,
  PlatformSetup,
  REQUEST_TIMEOUT_MS,
  sweepIdleConnections,
} from './platform-setup';
import { REQUEST_ID_HEADER, requestIdOf } from './request-id';
import { API_DOCS_SECURITY_POLICY, API_SECURITY_HEADERS, corsOptionsFor } from './security-headers';
import { trustFunction } from './trust-proxy';

/** The default platform: @nestjs/platform-express. */
export function expressPlatform(): HttpPlatformKit {
  const adapter = new ServiceExpressAdapter();
  return {
    adapter,
    configure(nestApp: INestApplication, setup: PlatformSetup) {
      const app = nestApp as NestExpressApplication;
      const trust = trustFunction(setup.trustProxy);
      app.set('trust proxy', trust);
      app.disable('x-powered-by');
      // Answers are small, personal and not cacheable: hashing each body for an ETag is waste.
      app.set('etag', false);
      const server: Server = app.getHttpServer();
      server.on('clientError', answerClientError);
      server.requestTimeout = REQUEST_TIMEOUT_MS;
      server.keepAliveTimeout = KEEP_ALIVE_MS;

      // One middleware running the steps in Fastify's order (headers and id, CORS, then the URL,
      // cookies and body): each layer of Express's router costs on every request, and the token
      // path is measured (docs/performance.md).
      app.use(
        inOrder([
          answerHeaders((address) => trust(address, 0), setup.observers),
          countOptions(setup.unroutedLimit),
          browserCors(setup.corsOrigins),
          decodeUrl,
          // After decodeUrl: the path Express routes, whatever its spelling.
          ...(setup.apiDocs ? [apiDocs(setup.unroutedLimit)] : []),
          cookieParser(),
          jsonBody(),
        ]),
      );
      adapter.unroutedLimit = setup.unroutedLimit;
      adapter.configured = true;
      return Promise.resolve();
    },
    ready: () => Promise.resolve(),
  };
}

class ServiceExpressAdapter extends ExpressAdapter {
  configured = false;
  unroutedLimit: PlatformSetup['unroutedLimit'] | undefined;

  /**
   * Nest's not-found handler, behind the general rate limit: no guard runs for an unknown path.
   * OPTIONS requests were counted before CORS (countOptions).
   */
  override setNotFoundHandler(handler: RequestHandler, prefix?: string): void {
    const limit = this.unroutedLimit;
    if (!limit) return void super.setNotFoundHandler(handler, prefix);
    const counted: RequestHandler = (req, res, next) => {
      if (req.method === 'OPTIONS') return void handler(req, res, next);
      limit
        .spend(req.ip ?? '', pathOf(req.originalUrl))
        .then((refusal) => (refusal ? next(refusal) : void handler(req, res, next)), next);
    };
    super.setNotFoundHandler(counted, prefix);
  }

  /**
   * `@Redirect()`: the status and `Location`, no body, as Fastify answers. Express's own
   * `res.redirect` writes a "Found. Redirecting to …" page nobody reads and the document does
   * not list.
   */
  override redirect(response: Response, statusCode: number, url: string): void {
    response.status(statusCode).location(url).end();
  }

  override close() {
    const stopSweeping = sweepIdleConnections(this.getHttpServer());
    return Promise.resolve(super.close()).finally(stopSweeping);
  }
}

/**
 * Runs each handler in turn, as separate `app.use` layers would; an error skips the rest. Like
 * Express, it takes `next(null)` for no error: `cors` calls it so for an origin it does not allow,
 * and reading that as an error skipped the cookies and the body of every such request.
 */
function inOrder(handlers: RequestHandler[]): RequestHandler {
  return (req, res, next) => {
    let index = 0;
    const step = (error?: unknown): void => {
      if (error !== undefined && error !== null) return next(error);
      if (index === handlers.length) return next();
      void handlers[index++](req, res, step);
    };
    step();
  };
}

/**
 * Every OPTIONS request spends from the general rate limit before CORS answers it: no route takes
 * OPTIONS, so no guard would count it (one CORS does not answer goes on to the not-found handler,
 * which leaves it alone).
 */
function countOptions(limit: PlatformSetup['unroutedLimit']): RequestHandler {
  return (req, _res, next) => {
    if (req.method !== 'OPTIONS') return next();
    limit.spend(req.ip ?? '', pathOf(req.url)).then((refusal) => next(refusal), next);
  };
}

/**
 * The `cors` middleware Nest's `enableCors` would add, run only for requests that carry an
 * `Origin` (browsers): any other gets no CORS headers from it either way.
 */
function browserCors(origins: readonly string[]): RequestHandler {
  const optionsFor = corsOptionsFor(origins);
  const handle = cors<Request>((req, callback) => callback(null, optionsFor(req.path)));
  return (req, res, next) => (req.headers.origin === undefined ? next() : handle(req, res, next));
}

const SECURITY_HEADERS = Object.entries(API_SECURITY_HEADERS);

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
    (req as Request & { id: string }).id = id;
    for (const [name, value] of SECURITY_HEADERS) res.setHeader(name, value);
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

/**
 * The API reference is a web page: its routes get a page's policy, every other answer the API's.
 * Its routes are the platform's own, where no guard runs: a visit spends from the general limit
 * here.
 */
function apiDocs(limit: PlatformSetup['unroutedLimit']): RequestHandler {
  return (req, res, next) => {
    if (isApiDocsPage(req.path)) {
      res.setHeader('content-security-policy', API_DOCS_SECURITY_POLICY);
    }
    if (!isApiDocsVisit(req.path)) return next();
    limit.spend(req.ip ?? '', req.path).then((refusal) => next(refusal), next);
  };
}

/**
 * Routes match the decoded path, as Fastify's router matches it (`/auth/%6Cogin` is login); a
 * path that does not decode is refused as Fastify refuses it. `%2F` and the other reserved
 * characters stay encoded.
 */
function decodeUrl(req: Request, _res: Response, next: NextFunction): void {
  const path = pathOf(req.url);
  if (!path.includes('%')) return next();
  let decoded: string;
  try {
    decoded = decodeURI(path);
  } catch {
    return next(new AppException('VALIDATION_ERROR', { message: 'The request URL is malformed' }));
  }
  req.url = decoded + req.url.slice(path.length);
  next();
}

/**
 * JSON bodies up to 5 MB (413 past that), UTF-8 and uncompressed (415 otherwise); any other body
 * type is refused with 415 before anything is read. Text that is not valid JSON is marked rather
 * than refused, so each route answers it with its own error code (parseJsonText, as on Fastify).
 */
function jsonBody(): RequestHandler {
  const readText = express.text({ type: () => true, limit: MAX_BODY_BYTES, inflate: false });
  return (req: Request, res: Response, next: NextFunction) => {
    if (refusesMediaType(req.method, req.headers)) {
      return next(new AppException('UNSUPPORTED_MEDIA_TYPE'));
    }
    if (
      req.method === 'GET' ||
      req.method === 'HEAD' ||
      req.headers['content-type'] === undefined
    ) {
      return next();
    }
    if (isUnreadableBody(req.headers)) return next(new AppException('UNSUPPORTED_MEDIA_TYPE'));
    let answered = false;
    readText(req, res, (error?: unknown) => {
      if (answered) return;
      answered = true;
      if (error !== undefined) {
        const status = (error as { status?: unknown }).status;
        return next((typeof status === 'number' && exceptionForStatus(status)) || error);
      }
      req.body = parseJsonText(typeof req.body === 'string' ? req.body : '');
      next();
    });
    // body-parser reads a refused body to its end before answering (so the client, still
    // sending, gets the answer); past the bound, the 413 goes out now and the connection closes.
    drainRequest(req, (complete) => {
      if (answered || complete) return;
      answered = true;
      res.setHeader('Connection', 'close');
      next(new AppException('PAYLOAD_TOO_LARGE'));
    });
  };
}
