import { HttpRequest } from '../../common/http/http-request';

export const ACCESS_COOKIE = 'access_token';
export const REFRESH_COOKIE = 'refresh_token';

/** Only a non-empty string is a token candidate. */
function cookie(req: HttpRequest, name: string): string | null {
  const value: unknown = req.cookies?.[name];
  return typeof value === 'string' && value !== '' ? value : null;
}

export function bearerToken(req: HttpRequest): string | null {
  const header = req.headers.authorization;
  const match = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return match ? match[1] : null;
}

/** The bearer header wins over the cookie when both are sent. */
export function accessToken(req: HttpRequest): string | null {
  return bearerToken(req) ?? cookie(req, ACCESS_COOKIE);
}

export function refreshToken(req: HttpRequest): string | null {
  return cookie(req, REFRESH_COOKIE);
}
