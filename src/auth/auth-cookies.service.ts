import { Injectable } from '@nestjs/common';
import { CookieOptions, Response } from 'express';
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

@Injectable()
export class AuthCookies {
  constructor(private readonly cookies: CookieConfig) {}

  set(res: Response, tokens: SessionTokens): void {
    res.cookie(ACCESS_COOKIE, tokens.accessToken, {
      ...this.options('/'),
      maxAge: tokens.accessExpiresIn * 1000,
    });
    res.cookie(REFRESH_COOKIE, tokens.refreshToken, {
      ...this.options(REFRESH_COOKIE_PATH),
      maxAge: tokens.refreshExpiresIn * 1000,
    });
  }

  clear(res: Response): void {
    res.clearCookie(ACCESS_COOKIE, this.options('/'));
    res.clearCookie(REFRESH_COOKIE, this.options(REFRESH_COOKIE_PATH));
  }

  private options(path: string): CookieOptions {
    return {
      httpOnly: true,
      secure: this.cookies.secure,
      sameSite: this.cookies.sameSite,
      path,
    };
  }
}
