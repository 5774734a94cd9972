import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import { Response } from 'express';
import { Envelope } from '../http/envelope';
import { AppException } from './app.exception';
import { ERROR_CATALOGUE, ErrorCode } from './error-codes';

/** Codes for HTTP errors raised by Nest or Express themselves rather than by our code. */
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
 * The one place errors become responses. Only catalogue messages and our own messages reach the
 * client: a library's text, a stack or SQL is logged here and never sent.
 */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Exceptions');

  catch(exception: unknown, host: ArgumentsHost): void {
    const response = host.switchToHttp().getResponse<Response>();
    const error = this.toAppException(exception);
    if (response.headersSent) {
      response.end();
      return;
    }
    const body: Envelope = { success: false, message: error.message, error: error.code };
    if (error.details?.length) body.details = error.details;
    if (error.retryAfter !== undefined) response.setHeader('Retry-After', String(error.retryAfter));
    response.status(error.status).json(body);
  }

  private toAppException(exception: unknown): AppException {
    if (exception instanceof AppException) return exception;
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      const code = CODE_FOR_STATUS[status];
      if (code) return new AppException(code, { status });
      if (status < 500) {
        return new AppException('VALIDATION_ERROR', { status, message: 'The request was refused' });
      }
    }
    this.logger.error(
      exception instanceof Error ? (exception.stack ?? exception.message) : String(exception),
    );
    return new AppException('INTERNAL_ERROR', { message: ERROR_CATALOGUE.INTERNAL_ERROR.message });
  }
}
