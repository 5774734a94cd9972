import { Injectable } from '@nestjs/common';
import { JwtConfig } from '../config/config.sections';
import { User } from '../users/user.entity';
import { BaseClaims, JwtSigner, epochSeconds } from './jwt-signer';

export interface AccessClaims extends BaseClaims {
  typ: 'access';
  /** The user's token version at issue; a bump (logout, reset, theft) revokes the token. */
  ver: number;
  role: string;
}

export interface IssuedAccessToken {
  token: string;
  /** Seconds. */
  expiresIn: number;
}

@Injectable()
export class AccessTokensService {
  readonly signer: JwtSigner;

  constructor(private readonly jwt: JwtConfig) {
    this.signer = new JwtSigner(jwt.accessSecret, 'access');
  }

  issue(user: User): IssuedAccessToken {
    const iat = epochSeconds();
    const claims: AccessClaims = {
      sub: user.id,
      typ: 'access',
      ver: user.tokenVersion,
      role: user.role,
      iat,
      exp: iat + this.jwt.accessTtl,
    };
    return { token: this.signer.sign({ ...claims }), expiresIn: this.jwt.accessTtl };
  }

  /** The token's claims are well-formed and of the access kind (signature already checked). */
  static isAccessClaims(payload: unknown): payload is AccessClaims {
    const claims = payload as Partial<AccessClaims> | null;
    return (
      typeof claims === 'object' &&
      claims !== null &&
      claims.typ === 'access' &&
      typeof claims.sub === 'string' &&
      typeof claims.ver === 'number'
    );
  }
}
