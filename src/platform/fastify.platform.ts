import { INestApplication } from '@nestjs/common';
import fastifyCookie from '@fastify/cookie';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { IncomingMessage, Server } from 'node:http';
import { AppException } from '../common/errors/app.exception';
import { errorBody, exceptionForStatus } from '../common/errors/all-exceptions.filter';

import { AnswerObserver, pathOf } from '../common/http/answer';
import {
  MAX_BODY_BYTES,
  isUnreadableBody,
  parseJsonText,
  refusesMediaType,
} from '../common/http/json-body';
import { API_DOCS_SECURITY_POLICY, API_SECURITY_HEADERS, corsOptionsFor } from './security-headers';
import { TrustFunction, trustFunction } from './trust-proxy';
import { REQUEST_ID_HEADER, requestIdOf } from './request-id';
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

type ErrorHandler = (error: unknown, request: FastifyRequest, reply: FastifyReply) => void;

/** `HTTP_PLATFORM=fastify`: the same service on @nestjs/platform-fastify. */
export function fastifyPlatform(): HttpPlatformKit {
  // Fastify takes its proxy trust when it is built, before the validated config exists.
  let trust: TrustFunction = () => false;
  const adapter = new ServiceFastifyAdapter({
    trustProxy: (address: string, hop: number) => trust(address, hop),
    bodyLimit: MAX_BODY_BYTES,
    // As Express: /API/V1/AUTH/LOGIN and /auth/login/ are the same route, and a path parameter
    // of any length reaches its route (a 300-character session id is that route's 404, not a
    // 414 of Fastify's own); Node's 16 KB limit on the request head still bounds it.
    routerOptions: { caseSensitive: false, ignoreTrailingSlash: true, maxParamLength: 16_384 },
    frameworkErrors: answerFrameworkError,
    clientErrorHandler: answerClientError,
    requestTimeout: REQUEST_TIMEOUT_MS,
    keepAliveTimeout: KEEP_ALIVE_MS,
    // While stopping, requests on open connections are still served (the database closes after
    // the server); Fastify's own 503 would not be the envelope.
    return503OnClosing: false,
    genReqId: (req: IncomingMessage) => requestIdOf(req, (address) => trust(address, 0)),
    // requestIdOf reads the header itself: well-formed ids from trusted proxies only.
    requestIdHeader: false,
  });
  return {
    adapter,
    async configure(nestApp: INestApplication, setup: PlatformSetup) {
      trust = trustFunction(setup.trustProxy);
      const app = nestApp as NestFastifyApplication;
      const fastify = app.getHttpAdapter().getInstance();
      observeAnswers(fastify, setup.observers);
      nestErrorsEverywhere(fastify, adapter);
      countOptions(adapter, setup.unroutedLimit);
      fastify.addHook('onRequest', (request, reply, done) => {
        reply.headers(API_SECURITY_HEADERS).header(REQUEST_ID_HEADER, request.id);
        done();
      });
      registerJsonBody(fastify);
      answerAfterTheBody(fastify);
      await app.register(fastifyCookie);
      // A preflight without Access-Control-Request-Method is answered like any other request.
      const corsFor = corsOptionsFor(setup.corsOrigins);
      app.enableCors({
        delegator: (request: FastifyRequest, callback: (error: null, options: object) => void) =>
          callback(null, { ...corsFor(pathOf(request.url)), strictPreflight: false }),
      });
      if (setup.apiDocs) apiDocs(fastify, setup.unroutedLimit);
      adapter.configured = true;
    },
    async ready(app: INestApplication) {
      await (app as NestFastifyApplication).getHttpAdapter().getInstance().ready();
    },
  };
}

/**
 * JSON bodies up to 5 MB (413 past that), UTF-8 and uncompressed (415 otherwise); any other body
 * type is refused with 415 before anything is read.
 */
function registerJsonBody(fastify: FastifyInstance): void {
  // After the onRequest hooks (headers, CORS), on every path, 404s included, as on Express.
  fastify.addHook('preParsing', (request, _reply, payload, done) => {
    if (refusesMediaType(request.method, request.headers)) {
      return done(new AppException('UNSUPPORTED_MEDIA_TYPE'));
    }
    done(null, payload);
  });
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser(
    'application/json',
    { parseAs: 'string', bodyLimit: MAX_BODY_BYTES },
    (req, text, done) => {
      if (isUnreadableBody(req.headers)) {
        return done(new AppException('UNSUPPORTED_MEDIA_TYPE'), undefined);
      }
      done(null, parseJsonText(text as string));
    },
  );
}

/**
 * Every OPTIONS request spends from the general rate limit before CORS answers it: no route takes
 * OPTIONS, so no guard would count it. Nest's first request hook runs before its CORS hook; the
 * API's headers are set here on a refusal, as the later hook would have. One CORS does not answer
 * goes on to the not-found handler, which leaves it alone.
 */
function countOptions(adapter: ServiceFastifyAdapter, limit: PlatformSetup['unroutedLimit']): void {
  adapter.unroutedLimit = limit;
  adapter.setOnRequestHook((request, reply, done) => {
    if (request.method !== 'OPTIONS') return done();
    limit.spend(request.ip, pathOf(request.url)).then((refusal) => {
      if (refusal) reply.headers(API_SECURITY_HEADERS).header(REQUEST_ID_HEADER, request.id);
      done(refusal);
    }, done);
  });
}

/**
 * Nest's error handler (the envelope) for every route, those of plugins included: a route takes
 * the handler of its context when its plugin has loaded, and @fastify/cors's `OPTIONS *` loads
 * before Nest sets its own, so a refused OPTIONS request got Fastify's error body.
 */
function nestErrorsEverywhere(fastify: FastifyInstance, adapter: ServiceFastifyAdapter): void {
  fastify.addHook('onRoute', (route) => {
    route.errorHandler ??= (error, request, reply) => adapter.answerError(error, request, reply);
  });
}

/**
 * An answer given before the body was read (413 on its declared length, 415) goes out once the
 * body has arrived, read and discarded up to a bound (drainRequest); past it, the answer closes
 * the connection. Fastify otherwise answers at once and closes a connection the client is still
 * writing to, and the client often sees a reset instead of the answer.
 */
function answerAfterTheBody(fastify: FastifyInstance): void {
  fastify.addHook('onSend', (request, reply, payload, done) => {
    const raw = request.raw;
    if (raw.complete || raw.destroyed) return done(null, payload);
    drainRequest(raw, (complete) => {
      if (!complete) void reply.header('connection', 'close');
      done(null, payload);
    });
  });
}

/** One `onResponse` hook for every observer, none when there is nothing to observe. */
function observeAnswers(fastify: FastifyInstance, observers: AnswerObserver[]): void {
  if (observers.length === 0) return;
  fastify.addHook('onResponse', (request, reply, done) => {
    const answer = {
      requestId: request.id,
      method: request.method,
      path: pathOf(request.url),
      route: request.routeOptions.url,
      status: reply.statusCode,
      milliseconds: reply.elapsedTime,
    };
    for (const observe of observers) observe(answer);
    done();
  });
}

/**
 * The API reference is a web page: its routes get a page's policy, every other answer keeps the
 * API's. Its routes are the platform's own, where no guard runs: a visit spends from the general
 * limit here.
 */
function apiDocs(fastify: FastifyInstance, limit: PlatformSetup['unroutedLimit']): void {
  fastify.addHook('onRoute', (route) => {
    if (isApiDocsVisit(route.url)) {
      route.onRequest = [
        ...(route.onRequest ? [route.onRequest].flat() : []),
        (request, _reply, done) => {
          limit.spend(request.ip, pathOf(request.url)).then((refusal) => done(refusal), done);
        },
      ];
    }
    if (isApiDocsPage(route.url)) {
      route.onSend = [
        ...(route.onSend ? [route.onSend].flat() : []),
        (_request, reply, payload, done) => {
          void reply.header('content-security-policy', API_DOCS_SECURITY_POLICY);
          done(null, payload);
        },
      ];
    }
  });
}

/**
 * What Fastify's router refuses before any hook or Nest code runs (a URL that does not decode):
 * the same envelope and headers as every other answer, never Fastify's own error body.
 */
function answerFrameworkError(error: FastifyError, req: FastifyRequest, reply: FastifyReply): void {
  const status = error.statusCode ?? 400;
  const known =
    error.code === 'FST_ERR_BAD_URL'
      ? new AppException('VALIDATION_ERROR', { message: 'The request URL is malformed' })
      : exceptionForStatus(status);
  const answer = known ?? new AppException('INTERNAL_ERROR');
  void reply
    .headers(API_SECURITY_HEADERS)
    .header(REQUEST_ID_HEADER, req.id)
    .status(answer.status)
    .send(errorBody(answer));
}

class ServiceFastifyAdapter extends FastifyAdapter {
  configured = false;
  unroutedLimit: PlatformSetup['unroutedLimit'] | undefined;
  private nestErrorHandler: ErrorHandler | undefined;

  override setErrorHandler(handler: ErrorHandler) {
    this.nestErrorHandler = handler;
    return super.setErrorHandler(handler);
  }

  /** Answers as Nest's exception filters do, once Nest has set its handler (at init). */
  answerError(error: unknown, request: FastifyRequest, reply: FastifyReply): void {
    if (this.nestErrorHandler) this.nestErrorHandler(error, request, reply);
    else void reply.send(error);
  }

  /**
   * Nest's not-found handler, behind the general rate limit: no guard runs for an unknown path.
   * OPTIONS requests were counted before CORS (countOptions).
   */
  override setNotFoundHandler(handler: (request: FastifyRequest, reply: FastifyReply) => unknown) {
    const limit = this.unroutedLimit;
    if (!limit) return super.setNotFoundHandler(handler);
    return super.setNotFoundHandler(async (request: FastifyRequest, reply: FastifyReply) => {
      if (request.method !== 'OPTIONS') {
        const refusal = await limit.spend(request.ip, pathOf(request.url));
        if (refusal) throw refusal;
      }
      return handler(request, reply);
    });
  }

  override close() {
    const stopSweeping = sweepIdleConnections(this.getHttpServer<Server>());
    return super.close().finally(stopSweeping);
  }
}
