import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ERROR_CATALOGUE, ErrorCode } from '../common/errors/error-codes';
import { ROLES } from '../users/user.entity';

/**
 * The shapes of the answers, for the OpenAPI document only: the code builds them from the
 * interfaces in user.view.ts and envelope.ts, which these classes mirror field for field.
 */

export class FieldErrorModel {
  @ApiProperty({ example: 'email' })
  field!: string;

  @ApiProperty({ example: 'email must be a valid email address' })
  message!: string;
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

export class PublicUserModel {
  @ApiProperty({ example: 'user_184467440737095516' })
  id!: string;

  @ApiProperty({ format: 'email', example: 'ann@example.com' })
  email!: string;

  @ApiProperty({ example: 'ann' })
  username!: string;

  @ApiProperty({ enum: ROLES })
  role!: string;

  @ApiProperty()
  email_verified!: boolean;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;
}

export class VerifiedUserModel extends PublicUserModel {
  @ApiProperty({ format: 'date-time', nullable: true, type: String })
  verified_at!: string | null;
}

export class ProfileModel extends VerifiedUserModel {
  @ApiProperty({ format: 'date-time' })
  updated_at!: string;
}

export class UserDataModel {
  @ApiProperty({ type: PublicUserModel })
  user!: PublicUserModel;
}

export class ProfileDataModel {
  @ApiProperty({ type: ProfileModel })
  user!: ProfileModel;
}

export class VerifiedEmailDataModel {
  @ApiProperty({ type: VerifiedUserModel })
  user!: VerifiedUserModel;

  @ApiPropertyOptional({
    description: 'Where the page should send the user next, when the link named an application.',
  })
  redirect_url?: string;
}

/** The user in the body-token login shape (the contract's second shape). */
export class TokenUserModel {
  @ApiProperty({ example: 'user_184467440737095516' })
  id!: string;

  @ApiProperty({ format: 'email' })
  email!: string;

  @ApiProperty({ description: 'The username.' })
  name!: string;

  @ApiProperty()
  email_verified!: boolean;

  @ApiProperty({ nullable: true, type: String, enum: [null] })
  picture!: null;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty({ format: 'date-time' })
  updated_at!: string;
}

/** `X-Token-Delivery: body`: the tokens in the body, no envelope, no cookies. */
export class TokenResponseModel {
  @ApiProperty({ description: 'JWT, valid for ACCESS_TOKEN_TTL seconds.' })
  access_token!: string;

  @ApiProperty({ description: 'Send it back as the refresh_token cookie to /auth/refresh.' })
  refresh_token!: string;

  @ApiProperty({ enum: ['Bearer'] })
  token_type!: 'Bearer';

  @ApiProperty({ description: 'Seconds until the access token expires.', example: 900 })
  expires_in!: number;

  @ApiProperty({ type: TokenUserModel })
  user!: TokenUserModel;
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
  @ApiProperty({ enum: ['OKP', 'EC'] })
  kty!: string;

  @ApiProperty({ description: 'RFC 7638 thumbprint; access tokens name it in their header.' })
  kid!: string;

  @ApiProperty({ enum: ['EdDSA', 'ES256'] })
  alg!: string;

  @ApiProperty({ enum: ['sig'] })
  use!: string;

  @ApiPropertyOptional({ enum: ['Ed25519', 'P-256'] })
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
