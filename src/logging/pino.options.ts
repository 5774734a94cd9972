import pino, { DestinationStream } from 'pino';
import { Options } from 'pino-http';
import { LogConfig } from '../config/config.sections';

/** Fields that must never be written, should a future line log a whole object that holds one. */
const SECRET_FIELDS = ['password', 'newPassword', 'token', 'access_token', 'refresh_token'];

/**
 * The options nestjs-pino builds its one pino logger from. Lines are buffered and written off the
 * request path (pino flushes them when the process exits).
 */
export function pinoOptions(log: LogConfig, destination?: DestinationStream): Options {
  return {
    level: log.level,
    stream: destination ?? pino.destination({ dest: 1, sync: false, minLength: 4096 }),
    redact: {
      paths: [
        ...SECRET_FIELDS.flatMap((field) => [field, `*.${field}`]),
        'headers.authorization',
        'headers.cookie',
        '*.headers.authorization',
        '*.headers.cookie',
      ],
      censor: '[redacted]',
    },
  };
}
