import { ApiProperty } from '@nestjs/swagger';
import { EMAIL_ADDRESS } from '../openapi/email-address.property';
import { ROLES, User } from './user.entity';

/*
 * How users appear in answers. Each class is both the type the mapping functions return and the
 * schema in the OpenAPI document, so the two cannot say different things.
 */

/** A user as clients see it: never a hash, a token version or a normalized key. */
export class PublicUser {
  @ApiProperty({ example: 'user_184467440737095516' })
  id!: string;

  @ApiProperty(EMAIL_ADDRESS)
  email!: string;

  @ApiProperty({ example: 'ann' })
  username!: string;

  @ApiProperty({ enum: ROLES })
  role!: string;

  @ApiProperty()
  email_verified!: boolean;

  @ApiProperty({
    type: String,
    nullable: true,
    maxLength: 100,
    description: 'Display name; null when none is set.',
  })
  name!: string | null;

  @ApiProperty({
    type: String,
    format: 'uri',
    nullable: true,
    maxLength: 2048,
    description: "An https URL of the user's picture; null when none is set.",
  })
  picture!: string | null;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty({ format: 'date-time', description: 'When the account last changed.' })
  updated_at!: string;
}

/** The public view and when the email was verified (the verify-email answer). */
export class VerifiedUser extends PublicUser {
  @ApiProperty({ format: 'date-time', nullable: true, type: String })
  verified_at!: string | null;
}

/**
 * A proof an account can give `POST /auth/reauthenticate` (a step-up), in the order a page
 * offers them: its password, its authenticator app's code, one of its passkeys, a fresh sign-in
 * at a linked identity provider (`GET /users/me/identities` names them), a code mailed to it.
 */
export const REAUTHENTICATION_METHODS = [
  'password',
  'totp',
  'passkey',
  'identity_provider',
  'email_code',
] as const;
export type ReauthenticationMethod = (typeof REAUTHENTICATION_METHODS)[number];

/** What a profile adds to the user: how its owner proves it is them. */
export interface ProfileProofs {
  hasPassword: boolean;
  methods: ReauthenticationMethod[];
}

/** The signed-in user's own profile (`GET /users/me`, `PATCH /users/me`). */
export class ProfileView extends VerifiedUser {
  @ApiProperty({
    description:
      'The account has a password. Without one (made by an identity provider, or its password ' +
      'removed when a mailed code first proved its address), changing the email, deleting the ' +
      'account and switching the second factor off take a recent sign-in instead of the ' +
      'password; a password is set through the reset mail (POST /auth/forgot-password).',
  })
  has_password!: boolean;

  @ApiProperty({
    enum: REAUTHENTICATION_METHODS,
    isArray: true,
    example: ['passkey', 'identity_provider', 'email_code'],
    description:
      'The proofs this account can give POST /auth/reauthenticate, in the order to offer them: ' +
      '`password`, `totp` (the authenticator app), `passkey`, `identity_provider` (a fresh ' +
      'sign-in at a linked provider: GET /users/me/identities), `email_code` (a code mailed ' +
      'to its address; absent for an address whose domain must sign in through its provider).',
  })
  reauthentication_methods!: ReauthenticationMethod[];
}

/** The contract's body-token login shape names the username `name` and has a `picture`. */
export class TokenUser {
  @ApiProperty({ example: 'user_184467440737095516' })
  id!: string;

  @ApiProperty(EMAIL_ADDRESS)
  email!: string;

  @ApiProperty({
    description:
      'The display name, or the username while none is set (the contract calls this field ' +
      '`name` and always fills it).',
  })
  name!: string;

  @ApiProperty()
  email_verified!: boolean;

  @ApiProperty({ type: String, format: 'uri', nullable: true, maxLength: 2048 })
  picture!: string | null;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty({ format: 'date-time' })
  updated_at!: string;
}

export function publicUser(user: User): PublicUser {
  return {
    id: user.id,
    email: user.email,
    username: user.username,
    role: user.role,
    email_verified: user.emailVerified,
    name: user.name,
    picture: user.picture,
    created_at: user.createdAt.toISOString(),
    updated_at: user.updatedAt.toISOString(),
  };
}

export function verifiedUser(user: User): VerifiedUser {
  return { ...publicUser(user), verified_at: user.verifiedAt?.toISOString() ?? null };
}

export function profileView(user: User, proofs: ProfileProofs): ProfileView {
  return {
    ...verifiedUser(user),
    has_password: proofs.hasPassword,
    reauthentication_methods: proofs.methods,
  };
}

export function tokenResponseUser(user: User): TokenUser {
  return {
    id: user.id,
    email: user.email,
    name: user.name ?? user.username,
    email_verified: user.emailVerified,
    picture: user.picture,
    created_at: user.createdAt.toISOString(),
    updated_at: user.updatedAt.toISOString(),
  };
}
