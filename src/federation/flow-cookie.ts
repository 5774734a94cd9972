import { Injectable } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { CookieConfig, HttpPlatform } from '../config/config.sections';
import { HttpRequest } from '../common/http/http-request';
import { setCookie } from '../platform/response-cookies';
import { randomToken } from '../tokens/token-hash';
import { FLOW_TTL_SECONDS } from './federation-states.service';

const NAME = 'auth_flow';
/** Sent only to the callback (and the start routes' answers set it). */
const PATH = '/api/v1/auth/providers';
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
  constructor(
    private readonly cookies: CookieConfig,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

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
      { httpOnly: true, secure: this.cookies.secure, sameSite: 'lax', path: PATH },
      FLOW_TTL_SECONDS,
    );
    return value;
  }
}
