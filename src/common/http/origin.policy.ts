import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../config/config.sections';
import { HttpRequest } from './http-request';

/**
 * CSRF defence for cookie-authenticated requests that change state: a browser names the page's
 * origin in `Origin` (and marks cross-site requests in `Sec-Fetch-Site`); anything not on the
 * allow-list (CORS_ORIGINS and the service's own origin) is refused. Requests without either
 * header come from non-browser clients.
 */
@Injectable()
export class OriginPolicy {
  private readonly allowed: ReadonlySet<string>;
  private readonly apps: ReadonlySet<string>;

  constructor(app: AppConfig) {
    this.allowed = new Set([...app.corsOrigins, new URL(app.publicUrl).origin]);
    this.apps = new Set(app.appOrigins);
  }

  refusesChange(req: HttpRequest): boolean {
    return !isSafeMethod(req.method) && this.isForeign(req);
  }

  /**
   * A navigation that changes something, which the app starts with `location.assign` from its
   * own page: the browser says `Sec-Fetch-Site: same-origin` (the app on the service's origin)
   * or `same-site` (on a sibling host or port, as the SameSite=Lax cookie itself requires), and
   * sends no `Origin` on a GET. Refused: `cross-site` (another site's page or link, however
   * redirected), `none` (typed, a bookmark, or a link opened from a mail or another program: a
   * URL anyone may have handed over, and never the app's button), and an `Origin` outside
   * APP_ORIGINS (a script's request). Without either header (an older browser, a non-browser
   * client) nothing tells, and it is let through, as a state change is.
   */
  refusesNavigation(req: HttpRequest): boolean {
    const origin = req.headers.origin;
    if (typeof origin === 'string' && origin !== '') return !this.apps.has(origin);
    const site = req.headers['sec-fetch-site'];
    return site === 'cross-site' || site === 'none';
  }

  private isForeign(req: HttpRequest): boolean {
    const origin = req.headers.origin;
    if (typeof origin === 'string' && origin !== '') return !this.allowed.has(origin);
    return req.headers['sec-fetch-site'] === 'cross-site';
  }
}

function isSafeMethod(method: string): boolean {
  return method === 'GET' || method === 'HEAD' || method === 'OPTIONS';
}
