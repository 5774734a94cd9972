import { Injectable, Logger as NestLogger, LoggerService } from '@nestjs/common';
import { Logger } from 'nestjs-pino';
import { AppConfig, MailConfig } from '../config/config.sections';
import { DOCS_PATH } from '../openapi/api-docs';
import { API_PREFIX } from '../platform/api-prefix';
import { LogStyle } from './log-style';
import { RouteMapLogger } from './route-map.logger';
import { startBanner } from './start-banner';

/**
 * Nest's own lines, and the line that says the service is up. In JSON, Nest's lines as they are
 * and "Listening on …"; for a person at a terminal, a first line saying where the service, the
 * example app and the mail are, and the route map in one line.
 */
@Injectable()
export class StartLog {
  /** What Nest writes its lines to (`app.useLogger`). */
  readonly nestLogger: LoggerService;
  private readonly routeMap: RouteMapLogger | undefined;

  constructor(
    private readonly logger: Logger,
    style: LogStyle,
    private readonly app: AppConfig,
    private readonly mail: MailConfig,
  ) {
    this.routeMap = style.readable ? new RouteMapLogger(logger) : undefined;
    this.nestLogger = this.routeMap ?? logger;
  }

  /** Listening on `url` (PUBLIC_URL with the port obtained), `port` of this machine. */
  listening(url: string, port: number): void {
    const apiUrl = `${url}/${API_PREFIX}`;
    if (!this.routeMap) {
      new NestLogger('Bootstrap').log(
        `Listening on ${apiUrl} (port ${port}, ${this.app.httpPlatform})`,
      );
      return;
    }
    this.logger.log(
      startBanner({
        appName: this.app.appName,
        apiUrl,
        platform: this.app.httpPlatform,
        corsOrigins: this.app.corsOrigins,
        outboxDir: this.mail.outboxDir,
        smtpUrl: this.mail.smtpUrl,
      }),
    );
    const docs = this.app.apiDocs ? `; the API's documentation on ${url}/${DOCS_PATH}` : '';
    this.logger.log(`${this.routeMap.routes} routes mapped${docs}`);
  }
}
