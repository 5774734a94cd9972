import { Injectable } from '@nestjs/common';
import { CookieSerializeOptions } from '@fastify/cookie';
import { FastifyReply } from 'fastify';
import { CookieConfig } from '../config/config.sections';
import { ACCESS_COOKIE, REFRESH_COOKIE } from './strategies/token-extractors';

/** The refresh token is sent only to the auth routes, never with the app's other requests. */
export const REFRESH_COOKIE_PATH = '/api/v1/auth';

export interface SessionTokens {
  accessToken: string;
  accessExpiresIn: number;
  refreshToken: string;
  refreshExpiresIn: number;
}

/** `Max-Age` for current browsers and `Expires` for old ones, as Express wrote them. */
function lifetime(seconds: number): CookieSerializeOptions {
  return { maxAge: seconds, expires: new Date(Date.now() + seconds * 1000) };
}

@Injectable()
export class AuthCookies {
  constructor(private readonly cookies: CookieConfig) {}

  set(reply: FastifyReply, tokens: SessionTokens): void {
    void reply.setCookie(ACCESS_COOKIE, tokens.accessToken, {
      ...this.options('/'),
      ...lifetime(tokens.accessExpiresIn),
    });
    void reply.setCookie(REFRESH_COOKIE, tokens.refreshToken, {
      ...this.options(REFRESH_COOKIE_PATH),
      ...lifetime(tokens.refreshExpiresIn),
    });
  }

  clear(reply: FastifyReply): void {
    void reply.clearCookie(ACCESS_COOKIE, this.options('/'));
    void reply.clearCookie(REFRESH_COOKIE, this.options(REFRESH_COOKIE_PATH));
  }

  private options(path: string): CookieSerializeOptions {
    return {
      httpOnly: true,
      secure: this.cookies.secure,
      sameSite: this.cookies.sameSite,
      path,
    };
  }
}
