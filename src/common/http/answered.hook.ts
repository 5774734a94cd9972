import { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** Something done with every request once it has been answered (a log line, a timing). */
export type AnswerObserver = (request: FastifyRequest, reply: FastifyReply) => void;

/**
 * One `onResponse` hook for every observer, none when there is nothing to observe: each hook
 * Fastify runs costs on every request, and the token path is measured (docs/performance.md).
 */
export function observeAnswers(fastify: FastifyInstance, observers: AnswerObserver[]): void {
  if (observers.length === 0) return;
  fastify.addHook('onResponse', (request, reply, done) => {
    for (const observe of observers) observe(request, reply);
    done();
  });
}
