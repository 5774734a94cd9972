import { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { STATUS_CODES } from 'node:http';
import { Socket } from 'node:net';
import { REQUEST_ID_HEADER } from '../../logging/request-id';
import { API_SECURITY_HEADERS } from '../http/security-headers';
import { AppException } from './app.exception';
import { errorBody, exceptionForStatus, sendError } from './all-exceptions.filter';

/**
 * What Fastify's router refuses before any hook or Nest code runs (a URL that does not decode):
 * the same envelope and headers as every other answer, never Fastify's own error body.
 */
export function answerFrameworkError(
  error: FastifyError,
  req: FastifyRequest,
  reply: FastifyReply,
): void {
  const status = error.statusCode ?? 400;
  const known =
    error.code === 'FST_ERR_BAD_URL'
      ? new AppException('VALIDATION_ERROR', { message: 'The request URL is malformed' })
      : exceptionForStatus(status);
  void reply.headers(API_SECURITY_HEADERS).header(REQUEST_ID_HEADER, req.id);
  sendError(reply, known ?? new AppException('INTERNAL_ERROR'));
}

/**
 * A request Node's HTTP parser refused (bad header, headers too large, too slow to arrive): no
 * request object exists, so the envelope is written to the socket and the connection closed.
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const status =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? 431
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? 408
        : 400;
  const message =
    status === 408 ? 'The request took too long to arrive' : 'The request is malformed';
  const body = JSON.stringify(errorBody(new AppException('VALIDATION_ERROR', { status, message })));
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
