import { ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { ERROR_CATALOGUE, ErrorCode } from '../common/errors/error-codes';
import { LINK_REFUSAL_REASONS } from '../tokens/invalid-link';
import { ProfileView, PublicUser, TokenUser, VerifiedUser } from '../users/user.view';

/**
 * The envelopes around the answers' data, for the OpenAPI document and as the controllers'
 * return types; the users inside them are the classes of user.view.ts.
 */

export class FieldErrorModel {
  @ApiProperty({ example: 'email' })
  field!: string;

  @ApiProperty({ example: 'email must be a valid email address' })
  message!: string;

  @ApiPropertyOptional({
    enum: LINK_REFUSAL_REASONS,
    description:
      'For `field: "token"` of an emailed link refused with INVALID_TOKEN: it expired unused, ' +
      'a newer link of its kind replaced it, it was used (or a change to the account withdrew ' +
      'it), or (a verification link) the address is verified already. Absent for a token the ' +
      'service does not know.',
  })
  reason?: string;
}

export class ErrorEnvelopeModel {
  @ApiProperty({ enum: [false] })
  success!: false;

  @ApiProperty({ example: ERROR_CATALOGUE.VALIDATION_ERROR.message })
  message!: string;

  @ApiProperty({ enum: Object.keys(ERROR_CATALOGUE), description: 'What clients branch on.' })
  error!: ErrorCode;

  @ApiPropertyOptional({ type: [FieldErrorModel], description: 'One entry per invalid field.' })
  details?: FieldErrorModel[];
}

export class UserDataModel {
  @ApiProperty({ type: PublicUser })
  user!: PublicUser;
}

/** A session started or renewed in cookies: its user, and how long the new access token lives. */
export class SignedInDataModel {
  @ApiProperty({ type: PublicUser })
  user!: PublicUser;

  @ApiProperty({
    type: 'integer',
    example: 900,
    description:
      'Seconds until the access token just set in the access_token cookie expires ' +
      '(ACCESS_TOKEN_TTL, less near the end of the session), so a page can renew ahead of it ' +
      'instead of waiting for a 401.',
  })
  expires_in!: number;
}

/**
 * Login's and refresh's envelope, named so that a generated client gets a type for each of their
 * two shapes; only this one has `success`.
 */
export class UserEnvelopeModel {
  @ApiProperty({ enum: [true] })
  success!: true;

  @ApiProperty({ example: 'Login successful' })
  message!: string;

  @ApiProperty({ type: SignedInDataModel })
  data!: SignedInDataModel;
}

export const SIGN_IN_METHODS = ['password', 'passkey', 'email_code', 'identity_provider'] as const;
export type SignInMethod = (typeof SIGN_IN_METHODS)[number];

/** `GET /auth/sign-in-methods`. */
export class SignInMethodsDataModel {
  @ApiProperty({ enum: SIGN_IN_METHODS, isArray: true, example: ['password', 'passkey'] })
  methods!: SignInMethod[];
}

/** `GET /auth/session`: the user or null, and whether a refresh is worth trying. */
export class SessionDataModel {
  // `nullable` beside a `$ref` is ignored in OpenAPI 3.0, so the null is an alternative of its own.
  @ApiProperty({
    oneOf: [
      { $ref: getSchemaPath(PublicUser) },
      { type: 'object', nullable: true, enum: [null], description: 'Nobody is signed in.' },
    ],
  })
  user!: PublicUser | null;

  @ApiProperty({ description: 'The request carried a refresh_token cookie.' })
  refreshable!: boolean;

  @ApiProperty({
    type: 'integer',
    nullable: true,
    example: 840,
    description:
      'Seconds left on the access token presented (whole seconds, as its `exp`); null when ' +
      '`user` is null.',
  })
  expires_in!: number | null;
}

export class ProfileDataModel {
  @ApiProperty({ type: ProfileView })
  user!: ProfileView;
}

export class VerifiedEmailDataModel {
  @ApiProperty({ type: VerifiedUser })
  user!: VerifiedUser;

  @ApiPropertyOptional({
    description: 'Where the page should send the user next, when the link named an application.',
  })
  redirect_url?: string;
}

export class EmailCodeRequestedDataModel {
  @ApiProperty({
    description:
      'Seconds the mailed code and link stay valid (EMAIL_CODE_TTL), counted from this answer: ' +
      'what a page says instead of a number of its own.',
    example: 600,
  })
  expires_in!: number;
}

/**
 * `X-Token-Delivery: body`: the tokens in the body, no envelope, no cookies; only this shape has
 * `access_token`.
 */
export class TokenResponseModel {
  @ApiProperty({
    description:
      'JWT (RFC 9068: typ at+jwt; iss, aud, sub, iat, exp, jti, sid, client_id; auth_time and amr as OpenID Connect and RFC 8176 name them), valid for ACCESS_TOKEN_TTL seconds.',
  })
  access_token!: string;

  @ApiProperty({ description: 'Send it back as the refresh_token cookie to /auth/refresh.' })
  refresh_token!: string;

  @ApiProperty({ enum: ['Bearer'] })
  token_type!: 'Bearer';

  @ApiProperty({ description: 'Seconds until the access token expires.', example: 900 })
  expires_in!: number;

  @ApiProperty({ type: TokenUser })
  user!: TokenUser;
}

export class HealthDataModel {
  @ApiProperty({ enum: ['ok', 'degraded'] })
  status!: string;

  @ApiPropertyOptional({
    description: 'Readiness only: each dependency checked.',
    example: { database: 'up', redis: 'up', smtp: 'down' },
    type: 'object',
    additionalProperties: { type: 'string', enum: ['up', 'down'] },
  })
  checks?: Record<string, 'up' | 'down'>;
}

export class JwkModel {
  @ApiProperty({ enum: ['EC'] })
  kty!: string;

  @ApiProperty({ description: 'RFC 7638 thumbprint; access tokens name it in their header.' })
  kid!: string;

  @ApiProperty({ enum: ['ES256'] })
  alg!: string;

  @ApiProperty({ enum: ['sig'] })
  use!: string;

  @ApiPropertyOptional({ enum: ['P-256'] })
  crv?: string;

  @ApiPropertyOptional()
  x?: string;

  @ApiPropertyOptional()
  y?: string;
}

export class JwkSetModel {
  @ApiProperty({ type: [JwkModel], description: 'Empty when tokens are signed with HS256.' })
  keys!: JwkModel[];
}

/** RFC 8414 metadata: only the fields that RFC defines and that are true of this service. */
export class AuthorizationServerMetadataModel {
  @ApiProperty({
    format: 'uri',
    example: 'https://auth.example.com',
    description: 'JWT_ISSUER: the `iss` of every access token.',
  })
  issuer!: string;

  @ApiProperty({
    format: 'uri',
    example: 'https://auth.example.com/.well-known/jwks.json',
    description: 'The key set at the root of PUBLIC_URL (empty with HS256).',
  })
  jwks_uri!: string;

  @ApiProperty({
    type: [String],
    maxItems: 0,
    description:
      'Empty: RFC 8414 requires the field, and the service has no OAuth authorization endpoint.',
  })
  response_types_supported!: string[];

  @ApiProperty({
    type: [String],
    maxItems: 0,
    description:
      'Empty: without it RFC 8414 implies authorization_code and implicit, which the service does not offer.',
  })
  grant_types_supported!: string[];

  @ApiPropertyOptional({
    format: 'uri',
    example: 'https://auth.example.com/api/v1/docs',
    description:
      'The interactive API reference; absent when API_DOCS is off (its default in production).',
  })
  service_documentation?: string;
}
