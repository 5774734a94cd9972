import { randomUUID } from 'node:crypto';
import { IncomingMessage } from 'node:http';

export const REQUEST_ID_HEADER = 'x-request-id';
/** An id a trusted proxy in front already gave the request is kept, if it is a plain token. */
const ACCEPTED_ID = /^[\w.:-]{1,64}$/;

/**
 * The request's id (Fastify's `genReqId`, Express's first middleware): the id in every log line,
 * and the client's to quote. A given `X-Request-Id` counts only from a peer TRUST_PROXY trusts (a
 * gateway tracing a call through its hops); a client could otherwise reuse another request's id
 * and muddle an investigation.
 */
export function requestIdOf(req: IncomingMessage, trusted: (address: string) => boolean): string {
  const given = req.headers[REQUEST_ID_HEADER];
  return typeof given === 'string' &&
    ACCEPTED_ID.test(given) &&
    trusted(req.socket.remoteAddress ?? '')
    ? given
    : randomUUID();
}
