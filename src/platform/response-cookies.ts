import { Response } from 'express';
import { FastifyReply } from 'fastify';
import { SameSite } from '../config/config.sections';

export interface CookieAttributes {
  path: string;
  httpOnly: boolean;
  secure: boolean;
  sameSite: SameSite;
}

/**
 * Writes a cookie through the serving platform's own cookie support. The two count `maxAge` in
 * different units (Express milliseconds, @fastify/cookie seconds); both then write `Max-Age` in
 * seconds and `Expires` for old browsers.
 */
export function setCookie(
  platform: string,
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

/** An empty value that expired in 1970, with the same attributes it was set with. */
export function clearCookie(
  platform: string,
  response: unknown,
  name: string,
  attributes: CookieAttributes,
): void {
  if (platform === 'fastify') void (response as FastifyReply).clearCookie(name, attributes);
  else (response as Response).clearCookie(name, attributes);
}
