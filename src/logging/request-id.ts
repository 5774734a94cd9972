import { randomUUID } from 'node:crypto';
import { IncomingMessage } from 'node:http';

export const REQUEST_ID_HEADER = 'x-request-id';
/** An id a gateway in front already gave the request is kept, if it is a plain token. */
const ACCEPTED_ID = /^[\w.:-]{1,64}$/;

/** Fastify's `genReqId`: the request's id in every log line, and the client's to quote. */
export function requestIdOf(req: IncomingMessage): string {
  const given = req.headers[REQUEST_ID_HEADER];
  return typeof given === 'string' && ACCEPTED_ID.test(given) ? given : randomUUID();
}
