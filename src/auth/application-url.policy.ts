import { Injectable } from '@nestjs/common';
import { AppException } from '../common/errors/app.exception';
import { AppConfig } from '../config/config.sections';

/**
 * A link in an email leads only to an app the operator listed in APP_ORIGINS: a reset or
 * verification link must never carry its token to a stranger's site.
 */
@Injectable()
export class ApplicationUrlPolicy {
  private readonly allowed: ReadonlySet<string>;

  constructor(app: AppConfig) {
    this.allowed = new Set(app.appOrigins);
  }

  check(url: string | undefined, field: string): string | undefined {
    if (url === undefined) return undefined;
    let origin: string | undefined;
    try {
      origin = new URL(url).origin;
    } catch {
      origin = undefined;
    }
    if (origin === undefined || !this.allowed.has(origin)) {
      throw new AppException('VALIDATION_ERROR', {
        message: 'The application URL is not allowed',
        details: [{ field, message: `${field} must point at an allowed application origin` }],
      });
    }
    return url;
  }
}
