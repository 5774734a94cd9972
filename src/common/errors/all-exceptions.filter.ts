import {
  ArgumentsHost,
  Catch,
  ExceptionFilter,
  HttpException,
  Logger,
  Optional,
} from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { Metrics } from '../../metrics/metrics.service';
import { Envelope } from '../http/envelope';
import { HttpRequest } from '../http/http-request';
import { AppException } from './app.exception';
import { ERROR_CATALOGUE, ErrorCode } from './error-codes';

/** Codes for HTTP errors raised by Nest, Express or Fastify themselves rather than by our code. */
const CODE_FOR_STATUS: Record<number, ErrorCode> = {
  400: 'VALIDATION_ERROR',
  401: 'INVALID_TOKEN',
  403: 'FORBIDDEN_ORIGIN',
  404: 'NOT_FOUND',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'RATE_LIMITED',
  503: 'SERVICE_UNAVAILABLE',
};

/**
 * Errors raised while the platform reads a request carry the status to answer: Fastify's own
 * (`FST_…`: a body type it cannot parse, a body too large) and the socket's (an upload cut off
 * midway, 400). Only a client-error status is taken from an error we did not raise; a 5xx stays
 * a fault.
 */
function frameworkStatus(exception: unknown): number | undefined {
  if (!(exception instanceof Error)) return undefined;
  const { code, statusCode } = exception as { code?: unknown; statusCode?: unknown };
  if (typeof statusCode !== 'number') return undefined;
  if (typeof code === 'string' && code.startsWith('FST_')) return statusCode;
  return statusCode >= 400 && statusCode < 500 ? statusCode : undefined;
}

/** Our code for a status a framework chose; `undefined` for server faults, which are logged. */
export function exceptionForStatus(status: number): AppException | undefined {
  const code = CODE_FOR_STATUS[status];
  if (code) return new AppException(code, { status });
  if (status < 500) {
    return new AppException('VALIDATION_ERROR', { status, message: 'The request was refused' });
  }
  return undefined;
}

/** The envelope of an error: its code and message, and the field details when there are any. */
export function errorBody(error: AppException): Envelope {
  const body: Envelope = { success: false, message: error.message, error: error.code };
  if (error.details?.length) body.details = error.details;
  return body;
}

/**
 * The one place errors become responses. Only catalogue messages and our own messages reach the
 * client: a library's text, a stack or SQL is logged here and never sent.
 */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Exceptions');

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    @Optional() private readonly metrics?: Metrics,
  ) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    // The platform's own calls, as the NestJS docs' filter does: Express and Fastify alike.
    const { httpAdapter } = this.adapterHost;
    const response: unknown = host.switchToHttp().getResponse();
    const error = this.toAppException(exception, host.switchToHttp().getRequest<HttpRequest>());
    if (error.code === 'RATE_LIMITED') this.metrics?.refusedByRateLimit();
    if (httpAdapter.isHeadersSent(response)) {
      httpAdapter.end(response);
      return;
    }
    // A route that answers text (/metrics, the link pages) may have set its own type already.
    httpAdapter.setHeader(response, 'Content-Type', 'application/json; charset=utf-8');
    if (error.retryAfter !== undefined) {
      httpAdapter.setHeader(response, 'Retry-After', String(error.retryAfter));
    }
    for (const [name, value] of Object.entries(error.headers ?? {})) {
      httpAdapter.setHeader(response, name, value);
    }
    httpAdapter.reply(response, errorBody(error), error.status);
  }

  private toAppException(exception: unknown, request: HttpRequest): AppException {
    if (exception instanceof AppException) return exception;
    const status =
      exception instanceof HttpException ? exception.getStatus() : frameworkStatus(exception);
    const known = status === undefined ? undefined : exceptionForStatus(status);
    if (known) return known;
    this.logger.error({
      requestId: request.id,
      msg: exception instanceof Error ? (exception.stack ?? exception.message) : String(exception),
    });
    return new AppException('INTERNAL_ERROR', { message: ERROR_CATALOGUE.INTERNAL_ERROR.message });
  }
}
