import { Injectable } from '@nestjs/common';
import { JwtConfig } from '../config/config.sections';
import { User } from '../users/user.entity';
import { AsymmetricJwt, PublishedJwk } from './asymmetric-jwt';
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

export interface JwkSet {
  keys: PublishedJwk[];
}

@Injectable()
export class AccessTokensService {
  private readonly signer: JwtSigner | AsymmetricJwt;
  /** The public keys other services verify with; none for HS256, whose secret is never shared. */
  readonly jwks: Readonly<JwkSet>;

  constructor(private readonly jwt: JwtConfig) {
    const access = jwt.access;
    this.signer =
      access.algorithm === 'HS256'
        ? new JwtSigner(access.secret, 'access')
        : new AsymmetricJwt(access.algorithm, access.current, access.previous);
    this.jwks = Object.freeze(
      this.signer instanceof AsymmetricJwt ? this.signer.jwks : { keys: [] },
    );
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

  /**
   * The claims of a token signed with the configured algorithm and a known key, unexpired; a
   * refused token throws jsonwebtoken's error. Synchronous: keys were prepared at boot.
   */
  verify(token: string): unknown {
    return this.signer.verify(token);
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
