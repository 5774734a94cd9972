import { FastifyRequest } from 'fastify';

export const ACCESS_COOKIE = 'access_token';
export const REFRESH_COOKIE = 'refresh_token';

/** Only a non-empty string is a token candidate. */
function cookie(req: FastifyRequest, name: string): string | null {
  const value: unknown = (req.cookies as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' && value !== '' ? value : null;
}

export function bearerToken(req: FastifyRequest): string | null {
  const header = req.headers.authorization;
  const match = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return match ? match[1] : null;
}

/** The bearer header wins over the cookie when both are sent. */
export function accessToken(req: FastifyRequest): string | null {
  return bearerToken(req) ?? cookie(req, ACCESS_COOKIE);
}

export function refreshToken(req: FastifyRequest): string | null {
  return cookie(req, REFRESH_COOKIE);
}
