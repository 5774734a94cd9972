import { ArgumentsHost, BadRequestException, Logger, NotFoundException } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { QueryFailedError } from 'typeorm';
import { AllExceptionsFilter } from './all-exceptions.filter';
import { AppException } from './app.exception';

function respond(exception: unknown) {
  // What the filter writes through the platform's adapter (HttpAdapterHost).
  const response = {
    statusCode: 0,
    body: undefined as unknown,
    headers: {} as Record<string, string>,
  };
  const httpAdapter = {
    isHeadersSent: () => false,
    setHeader: (_res: unknown, name: string, value: string) => (response.headers[name] = value),
    reply: (_res: unknown, body: unknown, status: number) => {
      response.body = body;
      response.statusCode = status;
    },
  };
  const host = {
    switchToHttp: () => ({ getResponse: () => response, getRequest: () => ({ id: 'req-7' }) }),
  } as unknown as ArgumentsHost;
  new AllExceptionsFilter({ httpAdapter } as unknown as HttpAdapterHost).catch(exception, host);
  return response;
}

describe('AllExceptionsFilter', () => {
  beforeEach(() => jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined));
  afterEach(() => jest.restoreAllMocks());

  it('turns an unexpected fault into 500 INTERNAL_ERROR without its text, and logs it', () => {
    const response = respond(new Error('ECONNRESET at /srv/app/secret-path.js:12'));
    expect(response.statusCode).toBe(500);
    expect(response.body).toEqual({
      success: false,
      message: 'An unexpected error occurred',
      error: 'INTERNAL_ERROR',
    });
    // Logged with its stack and the request it failed, for the operator to match the two.
    expect(Logger.prototype.error).toHaveBeenCalledWith({
      requestId: 'req-7',
      msg: expect.stringContaining('ECONNRESET at /srv/app/secret-path.js:12'),
    });
  });

  it('never sends SQL from a failed query', () => {
    const error = new QueryFailedError(
      'SELECT * FROM users WHERE id = ?',
      ['x'],
      new Error('syntax'),
    );
    const response = respond(error);
    expect(response.statusCode).toBe(500);
    expect(JSON.stringify(response.body)).not.toMatch(/SELECT|users/);
  });

  it('replaces the text of framework HTTP errors with the catalogue message', () => {
    const notFound = respond(new NotFoundException('Cannot GET /secret/internal/path'));
    expect(notFound.body).toEqual({
      success: false,
      message: 'Route not found',
      error: 'NOT_FOUND',
    });
    const bad = respond(new BadRequestException('Unexpected token } in JSON at position 10'));
    expect(bad.statusCode).toBe(400);
    expect(JSON.stringify(bad.body)).not.toContain('Unexpected token');
  });

  it("maps Fastify's own errors by their status, without their text", () => {
    const tooLarge = Object.assign(new Error('Request body is too large: /internal'), {
      code: 'FST_ERR_CTP_BODY_TOO_LARGE',
      statusCode: 413,
    });
    expect(respond(tooLarge).body).toEqual({
      success: false,
      message: 'The request body is larger than 5 MB',
      error: 'PAYLOAD_TOO_LARGE',
    });
    // An upload cut off midway: the socket's error, with the status Fastify gave it.
    const aborted = Object.assign(new Error('aborted'), { code: 'ECONNRESET', statusCode: 400 });
    expect(respond(aborted).body).toEqual({
      success: false,
      message: 'The request is invalid',
      error: 'VALIDATION_ERROR',
    });
    // A server-error status on an error we did not raise is a fault like any other.
    const foreign = Object.assign(new Error('driver said 502'), { statusCode: 502 });
    expect(respond(foreign).statusCode).toBe(500);
  });

  it('sends an AppException as it is, with details and Retry-After', () => {
    const response = respond(
      new AppException('RATE_LIMITED', { retryAfter: 42, details: [{ field: 'a', message: 'b' }] }),
    );
    expect(response.statusCode).toBe(429);
    expect(response.headers['Retry-After']).toBe('42');
    expect(response.body).toEqual({
      success: false,
      message: 'Too many requests, try again later',
      error: 'RATE_LIMITED',
      details: [{ field: 'a', message: 'b' }],
    });
  });
});
