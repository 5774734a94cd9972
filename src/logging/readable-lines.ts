import { DestinationStream } from 'pino';
import { prettyFactory } from 'pino-pretty';

/** A request's own line: what was asked, and the answer. */
interface RequestLine {
  method: string;
  path: string;
  status: number;
  responseTime: number;
}

function isRequestLine(
  line: Record<string, unknown>,
): line is Record<string, unknown> & RequestLine {
  return typeof line.method === 'string' && typeof line.status === 'number';
}

/**
 * One readable line per log line (pino-pretty), for a person at a terminal: the time, the level,
 * and `POST /api/v1/auth/login 401 3 ms` for a request, `Context: message` for the rest; other
 * fields follow on the same line. The JSON lines a program reads keep every field.
 */
export function readableLines(destination: DestinationStream): DestinationStream {
  const pretty = prettyFactory({
    translateTime: 'SYS:HH:MM:ss',
    singleLine: true,
    ignore: 'pid,hostname,context,requestId,method,path,status,responseTime',
    messageFormat: (line, messageKey) => {
      if (isRequestLine(line)) {
        return `${line.method} ${line.path} ${line.status} ${line.responseTime} ms`;
      }
      const given = line[messageKey];
      const message = typeof given === 'string' ? given : (JSON.stringify(given) ?? '');
      return typeof line.context === 'string' ? `${line.context}: ${message}` : message;
    },
  });
  return { write: (line: string) => destination.write(pretty(line)) };
}
