import { Injectable } from '@nestjs/common';
import { Envelope, ok } from '../common/http/envelope';
import { HttpResponse } from '../common/http/http-request';
import { SignedInDataModel, TokenResponseModel } from '../openapi/api-models';
import { publicUser, tokenResponseUser } from '../users/user.view';
import { AuthCookies } from './auth-cookies.service';
import { Session } from './auth.service';
import { TokenDeliveryMode } from './token-delivery.decorator';

/**
 * Hands a new session to its client, the same way wherever one starts (login, refresh, a
 * password change): with `X-Token-Delivery: body`, the contract's token response and no cookies;
 * otherwise the HttpOnly cookies and the envelope with `data.user` and `data.expires_in` (the
 * access token's lifetime, as the token response's `expires_in`). (No answer of the API is
 * cached: see API_SECURITY_HEADERS.)
 */
@Injectable()
export class SessionDelivery {
  constructor(private readonly cookies: AuthCookies) {}

  deliver(
    res: HttpResponse,
    session: Session,
    delivery: TokenDeliveryMode,
    message: string,
  ): TokenResponseModel | Envelope<SignedInDataModel> {
    const { user, tokens } = session;
    if (delivery === 'body') {
      return {
        access_token: tokens.accessToken,
        refresh_token: tokens.refreshToken,
        token_type: 'Bearer',
        expires_in: tokens.accessExpiresIn,
        user: tokenResponseUser(user),
      };
    }
    this.cookies.set(res, tokens);
    // The cookie is unreadable to scripts: the lifetime tells a page when to renew ahead of it.
    return ok(message, { user: publicUser(user), expires_in: tokens.accessExpiresIn });
  }
}
