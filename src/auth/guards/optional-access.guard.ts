import { Injectable } from '@nestjs/common';
import { AuthGuard } from '@nestjs/passport';
import { ACCESS_STRATEGY } from '../strategies/access-token.strategy';

/**
 * The access-token strategy without the refusal: the handler gets the user when the token is
 * good and `null` when it is missing, expired, revoked or malformed. A fault (database down)
 * still fails the request: "no user" must never stand in for "could not tell".
 */
@Injectable()
export class OptionalAccessGuard extends AuthGuard(ACCESS_STRATEGY) {
  override handleRequest<T>(error: unknown, principal: T | false): T | null {
    if (error instanceof Error) throw error;
    return principal || null;
  }
}
