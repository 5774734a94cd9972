import { Injectable } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { AppConfig, CookieConfig, HttpPlatform } from '../config/config.sections';
import { HttpRequest } from '../common/http/http-request';
import { setCookie } from '../platform/response-cookies';
import { randomToken } from '../tokens/token-hash';
import { FLOW_TTL_SECONDS } from './provider-flow-states.service';

const NAME = 'auth_flow';
const VALUE = /^[A-Za-z0-9_-]{43}$/;

/**
 * The browser's side of a flow: a random HttpOnly cookie whose hash is stored with the state, so
 * a callback opened in another browser (someone's link, a forged redirect) finds no flow.
 * `SameSite=Lax`: the provider's redirect back is a top-level navigation from its site, which a
 * strict cookie would not come with. A browser keeps one value for its flows, so two tabs can
 * sign in at once.
 */
@Injectable()
export class FlowCookie {
  /**
   * The API's root under PUBLIC_URL (`/api/v1`): the cookie must reach every start route (the
   * sign-in's under /auth/providers, the link's under /users/me/identities) as well as the
   * callback. Scoped to one of them, the other start never saw the browser's value, set a new
   * one and orphaned a round trip in progress in another tab.
   */
  private readonly path: string;

  constructor(
    private readonly cookies: CookieConfig,
    private readonly adapterHost: HttpAdapterHost,
    app: AppConfig,
  ) {
    this.path = `${new URL(app.publicUrl).pathname.replace(/\/+$/, '')}/api/v1`;
  }

  read(request: HttpRequest): string | undefined {
    const value = request.cookies?.[NAME];
    return typeof value === 'string' && VALUE.test(value) ? value : undefined;
  }

  /** The browser's value (a new one if it has none), set again for the flow's lifetime. */
  issue(request: HttpRequest, response: unknown): string {
    const value = this.read(request) ?? randomToken();
    setCookie(
      this.adapterHost.httpAdapter.getType() as HttpPlatform,
      response,
      NAME,
      value,
      { httpOnly: true, secure: this.cookies.secure, sameSite: 'lax', path: this.path },
      FLOW_TTL_SECONDS,
    );
    return value;
  }
}
