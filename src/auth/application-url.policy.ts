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

  /**
   * Returns the URL in its normalised form (what the email links to and what is echoed back), or
   * refuses it. A URL with `user:password@` is refused: it can make an allowed origin read like
   * another host in a mail client.
   */
  check(url: string | undefined, field: string): string | undefined {
    if (url === undefined) return undefined;
    let parsed: URL | undefined;
    try {
      parsed = new URL(url);
    } catch {
      parsed = undefined;
    }
    if (!parsed || parsed.username || parsed.password || !this.allowed.has(parsed.origin)) {
      throw new AppException('VALIDATION_ERROR', {
        message: 'The application URL is not allowed',
        details: [{ field, message: `${field} must point at an allowed application origin` }],
      });
    }
    return parsed.href;
  }
}
