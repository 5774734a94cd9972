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

  constructor(app: AppConfig) {
    this.allowed = new Set([...app.corsOrigins, new URL(app.publicUrl).origin]);
  }

  refusesChange(req: HttpRequest): boolean {
    return !isSafeMethod(req.method) && this.isForeign(req);
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
