import { Response } from 'express';
import { FastifyReply } from 'fastify';
import { HttpPlatform, SameSite } from '../config/config.sections';

export interface CookieAttributes {
  path: string;
  httpOnly: boolean;
  secure: boolean;
  sameSite: SameSite;
}

/**
 * Writes a cookie through the serving platform's own cookie support. The two count `maxAge` in
 * different units (Express milliseconds, @fastify/cookie seconds); both then write `Max-Age` in
 * seconds and `Expires` for old browsers, byte for byte alike. A lifetime of 0 clears the cookie
 * (`Max-Age=0`, `Expires` now): the libraries' own `clearCookie` differ (only Fastify's writes
 * `Max-Age`).
 */
export function setCookie(
  platform: HttpPlatform,
  response: unknown,
  name: string,
  value: string,
  attributes: CookieAttributes,
  seconds: number,
): void {
  if (platform === 'fastify') {
    const expires = new Date(Date.now() + seconds * 1000);
    void (response as FastifyReply).setCookie(name, value, {
      ...attributes,
      maxAge: seconds,
      expires,
    });
  } else {
    (response as Response).cookie(name, value, { ...attributes, maxAge: seconds * 1000 });
  }
}
