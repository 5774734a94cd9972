import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { AccessTokensService } from '../../tokens/access-tokens.service';
import { User } from '../../users/user.entity';
import { UsersService } from '../../users/users.service';
import { JwtVerifierStrategy } from './jwt-verifier.strategy';
import { accessToken } from './token-extractors';

export const ACCESS_STRATEGY = 'access-token';

/**
 * Access token from `Authorization: Bearer` or the `access_token` cookie, verified with the
 * configured algorithm only (HS256, EdDSA or ES256) and, for a key pair, a known `kid` only.
 */
@Injectable()
export class AccessTokenStrategy extends PassportStrategy(JwtVerifierStrategy, ACCESS_STRATEGY) {
  constructor(
    tokens: AccessTokensService,
    private readonly users: UsersService,
  ) {
    super({ extract: accessToken, verify: (token: string) => tokens.verify(token) });
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
