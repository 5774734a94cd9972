import { HttpRequest } from '../../common/http/http-request';
import passport from 'passport';

export interface JwtVerifierOptions {
  /** The token candidate of a request, or null when it carries none. */
  extract: (req: HttpRequest) => string | null;
  /** The verified claims; a refused token throws (jsonwebtoken's errors, `TokenExpiredError`…). */
  verify: (token: string) => unknown;
}

type Verified = (error: unknown, principal?: unknown, info?: unknown) => void;

/**
 * A passport strategy around the service's own token verifiers (algorithm pinned, keys prepared at
 * boot: JwtSigner, AsymmetricJwt) instead of passport-jwt, whose jsonwebtoken has no EdDSA and
 * decodes every token twice. It hands the claims to `validate` and reports success and failure to
 * passport exactly as passport-jwt does, so the guards read the same failures (a
 * `TokenExpiredError` says "expired").
 */
export class JwtVerifierStrategy extends passport.Strategy {
  constructor(
    private readonly options: JwtVerifierOptions,
    private readonly verified: (claims: unknown, done: Verified) => void,
  ) {
    super();
  }

  /** Passport's types say Express; on Fastify the guard hands over Fastify's request. */
  override authenticate(req: unknown): void {
    const token = this.options.extract(req as HttpRequest);
    if (!token) return this.fail(new Error('No auth token'));
    let claims: unknown;
    try {
      claims = this.options.verify(token);
    } catch (error) {
      return this.fail(error as Error);
    }
    try {
      this.verified(claims, (error, principal, info) => {
        if (error) return this.error(error);
        if (!principal) return this.fail(info as Error);
        this.success(principal);
      });
    } catch (error) {
      this.error(error);
    }
  }
}
