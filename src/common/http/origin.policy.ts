import { HttpRequest } from './http-request';

/**
 * CSRF defence for cookie-authenticated requests that change state: a browser names the page's
 * origin in `Origin` (and marks cross-site requests in `Sec-Fetch-Site`); anything not on the
 * allow-list is refused. Requests without either header come from non-browser clients.
 */
export function isForeignOrigin(req: HttpRequest, allowedOrigins: ReadonlySet<string>): boolean {
  const origin = req.headers.origin;
  if (typeof origin === 'string' && origin !== '') return !allowedOrigins.has(origin);
  return req.headers['sec-fetch-site'] === 'cross-site';
}

export function isSafeMethod(method: string): boolean {
  return method === 'GET' || method === 'HEAD' || method === 'OPTIONS';
}
