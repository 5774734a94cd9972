import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { Strategy } from 'passport-jwt';
import { AccessTokensService } from '../../tokens/access-tokens.service';
import { JWT_ALGORITHMS } from '../../tokens/jwt-signer';
import { User } from '../../users/user.entity';
import { UsersService } from '../../users/users.service';
import { accessToken } from './token-extractors';

export const ACCESS_STRATEGY = 'access-token';

/** Access token from `Authorization: Bearer` or the `access_token` cookie. */
@Injectable()
export class AccessTokenStrategy extends PassportStrategy(Strategy, ACCESS_STRATEGY) {
  constructor(
    tokens: AccessTokensService,
    private readonly users: UsersService,
  ) {
    super({
      jwtFromRequest: accessToken,
      // A KeyObject, imported once; passport-jwt hands it to jsonwebtoken unchanged.
      secretOrKey: tokens.signer.key as unknown as string,
      algorithms: JWT_ALGORITHMS,
      ignoreExpiration: false,
    });
  }

  /**
   * Right signature and kind, and not revoked since: the user's token version still matches.
   * A refusal is `null` (passport "fail"), so a guard may go on to its next strategy; only a
   * fault (database down) is thrown.
   */
  async validate(payload: unknown): Promise<User | null> {
    if (!AccessTokensService.isAccessClaims(payload)) return null;
    const user = await this.users.findByIdCached(payload.sub);
    return user && user.tokenVersion === payload.ver ? user : null;
  }
}
