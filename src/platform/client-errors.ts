import { STATUS_CODES } from 'node:http';
import { Socket } from 'node:net';
import { AppException } from '../common/errors/app.exception';
import { errorBody } from '../common/errors/all-exceptions.filter';

/**
 * A request Node's HTTP parser refused (bad header, headers too large, too slow to arrive): no
 * request object exists, so the envelope is written to the socket and the connection closed. The
 * same on either platform: it is the HTTP server's `clientError`.
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
