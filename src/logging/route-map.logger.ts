import { LoggerService } from '@nestjs/common';

/** Nest's start-up lines a developer does not read: one per module and per controller. */
const QUIET = new Set(['NestFactory', 'InstanceLoader', 'RoutesResolver', 'NestApplication']);

/**
 * Nest's lines for a person at a terminal: the start-up chatter dropped and the route map
 * (a line per route) counted, for StartLog to say in one line. Warnings and errors all pass.
 */
export class RouteMapLogger implements LoggerService {
  private mapped = 0;

  constructor(private readonly inner: LoggerService) {}

  get routes(): number {
    return this.mapped;
  }

  log(message: unknown, ...rest: unknown[]): void {
    const context = rest.at(-1);
    if (context === 'RouterExplorer') {
      this.mapped++;
      return;
    }
    if (typeof context === 'string' && QUIET.has(context)) return;
    this.inner.log(message, ...rest);
  }

  error(message: unknown, ...rest: unknown[]): void {
    this.inner.error(message, ...rest);
  }

  warn(message: unknown, ...rest: unknown[]): void {
    this.inner.warn(message, ...rest);
  }

  debug(message: unknown, ...rest: unknown[]): void {
    this.inner.debug?.(message, ...rest);
  }

  verbose(message: unknown, ...rest: unknown[]): void {
    this.inner.verbose?.(message, ...rest);
  }

  fatal(message: unknown, ...rest: unknown[]): void {
    this.inner.fatal?.(message, ...rest);
  }
}
