import { INestApplication } from '@nestjs/common';
import fastifyCookie from '@fastify/cookie';
import { FastifyCorsOptions } from '@fastify/cors';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { IncomingMessage } from 'node:http';
import { AppException } from '../common/errors/app.exception';
import { errorBody, exceptionForStatus } from '../common/errors/all-exceptions.filter';
import { answerClientError } from '../common/errors/framework-errors';
import { AnswerObserver, pathOf } from '../common/http/answer';
import { MAX_BODY_BYTES, isUnreadableBody, parseJsonText } from '../common/http/json-body';
import {
  API_DOCS_SECURITY_POLICY,
  API_SECURITY_HEADERS,
  corsOptions,
} from '../common/http/security-headers';
import { TrustFunction, trustFunction } from '../common/http/trust-proxy';
import { REQUEST_ID_HEADER, requestIdOf } from '../logging/request-id';
import { DOCS_PATH } from '../openapi/openapi.document';
import { HttpPlatformKit, PlatformSetup } from './platform-setup';

/** `HTTP_PLATFORM=fastify`: the same service on @nestjs/platform-fastify. */
export function fastifyPlatform(): HttpPlatformKit {
  // Fastify takes its proxy trust when it is built, before the validated config exists.
  let trust: TrustFunction = () => false;
  const adapter = new FastifyAdapter({
    trustProxy: (address: string, hop: number) => trust(address, hop),
    bodyLimit: MAX_BODY_BYTES,
    // As Express: /API/V1/AUTH/LOGIN and /auth/login/ are the same route.
    routerOptions: { caseSensitive: false, ignoreTrailingSlash: true },
    frameworkErrors: answerFrameworkError,
    clientErrorHandler: answerClientError,
    // Node's default, which Fastify turns off: a client trickling a body is cut off.
    requestTimeout: 60_000,
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
      closeIdleWhileStopping(fastify);
      observeAnswers(fastify, setup.observers);
      fastify.addHook('onRequest', (request, reply, done) => {
        reply.headers(API_SECURITY_HEADERS).header(REQUEST_ID_HEADER, request.id);
        done();
      });
      registerJsonBody(fastify);
      await app.register(fastifyCookie);
      // A preflight without Access-Control-Request-Method is answered like any other request.
      app.enableCors({
        ...corsOptions(setup.corsOrigins),
        strictPreflight: false,
      } as FastifyCorsOptions);
      if (setup.apiDocs) docsPolicy(fastify);
    },
    async ready(app: INestApplication) {
      await (app as NestFastifyApplication).getHttpAdapter().getInstance().ready();
    },
  };
}

/**
 * JSON is the only body type: any other is refused with 415 by Fastify itself (this also keeps
 * HTML forms from posting cross-site), a body over 5 MB with 413.
 */
function registerJsonBody(fastify: FastifyInstance): void {
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

/** Swagger UI's routes get the policy of a web page; every other answer keeps the API's. */
function docsPolicy(fastify: FastifyInstance): void {
  fastify.addHook('onRoute', (route) => {
    if (!route.url.startsWith(`/${DOCS_PATH}`)) return;
    const own = route.onSend ? [route.onSend].flat() : [];
    route.onSend = [
      ...own,
      (_request, reply, payload, done) => {
        void reply.header('content-security-policy', API_DOCS_SECURITY_POLICY);
        done(null, payload);
      },
    ];
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

/**
 * While stopping, a keep-alive connection is closed as soon as its last request is answered.
 * Fastify closes the connections that are idle when the stop begins; one whose request was still
 * running would otherwise hold the stop open for the whole keep-alive timeout.
 */
function closeIdleWhileStopping(fastify: FastifyInstance): void {
  let sweeper: NodeJS.Timeout | undefined;
  fastify.addHook('preClose', (done) => {
    sweeper = setInterval(() => fastify.server.closeIdleConnections(), 50);
    sweeper.unref();
    done();
  });
  fastify.addHook('onClose', (_instance, done) => {
    clearInterval(sweeper);
    done();
  });
}
