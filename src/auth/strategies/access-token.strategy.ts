import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { Strategy } from 'passport-jwt';
import { AppException } from '../../common/errors/app.exception';
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

  /** Right signature and kind, and not revoked since: the user's token version still matches. */
  async validate(payload: unknown): Promise<User> {
    if (!AccessTokensService.isAccessClaims(payload)) throw invalid();
    const user = await this.users.findById(payload.sub);
    if (!user || user.tokenVersion !== payload.ver) throw invalid();
    return user;
  }
}

function invalid(): AppException {
  return new AppException('INVALID_TOKEN', { message: 'The access token is invalid or revoked' });
}
