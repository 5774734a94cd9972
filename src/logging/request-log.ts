import { PinoLogger } from 'nestjs-pino';
import { Logger } from 'pino';
import { AnswerObserver } from '../common/http/answered.hook';

/**
 * One JSON line per request, written once it is answered (observeAnswers) with the pino logger
 * Nest's lines go to. nestjs-pino's middleware (pino-http, a child logger per request, AsyncLocalStorage) cost a
 * third of the token check's throughput (docs/performance.md); lines a service writes during a
 * request name it explicitly instead (`ClientInfo.requestId`).
 */
export function requestLog(pinoLogger: PinoLogger): AnswerObserver {
  const root = pinoLogger.logger as Logger;
  return (request, reply) => {
    // Flat fields, and only these: no headers (cookies, bearer tokens), no query string (emailed
    // links carry their token there), no body.
    const line = {
      requestId: request.id,
      method: request.method,
      path: pathOf(request.url),
      status: reply.statusCode,
      responseTime: Math.round(reply.elapsedTime),
    };
    if (reply.statusCode >= 500) root.error(line, 'request failed');
    else root.info(line, 'request completed');
  };
}

function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}
