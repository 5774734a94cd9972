import { PinoLogger } from 'nestjs-pino';
import { Logger } from 'pino';
import { AnswerObserver } from '../common/http/answer';

/**
 * One JSON line per request, written once it is answered, with the pino logger Nest's lines go
 * to. nestjs-pino's middleware (pino-http, a child logger per request, AsyncLocalStorage) cost a
 * third of the token check's throughput (docs/performance.md); lines a service writes during a
 * request name it explicitly instead (`ClientInfo.requestId`).
 */
export function requestLog(pinoLogger: PinoLogger): AnswerObserver {
  const root = pinoLogger.logger as Logger;
  return (answer) => {
    // Flat fields, and only these: no headers (cookies, bearer tokens), no query string (emailed
    // links carry their token there), no body.
    const line = {
      requestId: answer.requestId,
      method: answer.method,
      path: answer.path,
      status: answer.status,
      responseTime: Math.round(answer.milliseconds),
    };
    // A 503 is a designed answer ("not now": a dependency is down, or the hashing queue is
    // full), not a fault; the outage behind it is logged once, where it is noticed.
    if (answer.status >= 500 && answer.status !== 503) root.error(line, 'request failed');
    else root.info(line, 'request completed');
  };
}
