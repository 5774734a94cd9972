import { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { API_SECURITY_HEADERS } from '../http/security-headers';
import { AppException } from './app.exception';
import { exceptionForStatus, sendError } from './all-exceptions.filter';

/**
 * What Fastify's router refuses before any hook or Nest code runs (a URL that does not decode):
 * the same envelope and headers as every other answer, never Fastify's own error body.
 */
export function answerFrameworkError(
  error: FastifyError,
  _req: FastifyRequest,
  reply: FastifyReply,
): void {
  const status = error.statusCode ?? 400;
  const known =
    error.code === 'FST_ERR_BAD_URL'
      ? new AppException('VALIDATION_ERROR', { message: 'The request URL is malformed' })
      : exceptionForStatus(status);
  void reply.headers(API_SECURITY_HEADERS);
  sendError(reply, known ?? new AppException('INTERNAL_ERROR'));
}
