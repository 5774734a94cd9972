import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';

/*
 * The options the service hands a browser (@simplewebauthn/server's generate…Options), as the
 * OpenAPI document describes them: WebAuthn's dictionaries under WebAuthn's names, each property
 * typed as @simplewebauthn/browser types it, so that a client generated from the document passes
 * them to `startRegistration` and `startAuthentication` without a cast
 * (test/openapi-types.e2e-spec.ts compiles one). Only what the service sends is listed.
 */

const BASE64URL = { pattern: '^[A-Za-z0-9_-]*$' };

@ApiSchema({ name: 'PublicKeyCredentialRpEntity' })
export class RelyingPartyEntityModel {
  @ApiProperty({ example: 'Auth Service', description: 'WEBAUTHN_RP_NAME.' })
  name!: string;

  @ApiProperty({ example: 'auth.example.com', description: 'WEBAUTHN_RP_ID.' })
  id!: string;
}

@ApiSchema({ name: 'PublicKeyCredentialUserEntityJSON' })
export class UserEntityModel {
  @ApiProperty({ ...BASE64URL, description: "The account's user handle (random), base64url." })
  id!: string;

  @ApiProperty({ example: 'ann@example.com', description: "The account's email." })
  name!: string;

  @ApiProperty({ example: 'ann', description: "The account's username." })
  displayName!: string;
}

@ApiSchema({ name: 'PublicKeyCredentialParameters' })
export class CredentialParametersModel {
  @ApiProperty({ type: 'integer', example: -7, description: 'A COSE algorithm.' })
  alg!: number;

  @ApiProperty({ enum: ['public-key'] })
  type!: 'public-key';
}

@ApiSchema({ name: 'PublicKeyCredentialDescriptorJSON' })
export class CredentialDescriptorModel {
  @ApiProperty({ ...BASE64URL, description: 'A credential id, base64url.' })
  id!: string;

  /** Stored as the browser reported them at registration: any string, not only WebAuthn's five. */
  @ApiPropertyOptional({ type: [String], example: ['internal', 'hybrid'] })
  transports?: string[];

  @ApiProperty({ enum: ['public-key'] })
  type!: 'public-key';
}

/** WebAuthn's requirement levels (ResidentKeyRequirement, UserVerificationRequirement). */
const REQUIREMENT = ['required', 'preferred', 'discouraged'] as const;

@ApiSchema({ name: 'AuthenticatorSelectionCriteria' })
export class AuthenticatorSelectionModel {
  @ApiProperty({ enum: REQUIREMENT, example: 'required' })
  residentKey!: (typeof REQUIREMENT)[number];

  @ApiProperty({ description: 'Whether `residentKey` is `required` (WebAuthn Level 1).' })
  requireResidentKey!: boolean;

  @ApiProperty({ enum: REQUIREMENT, example: 'preferred' })
  userVerification!: (typeof REQUIREMENT)[number];
}

@ApiSchema({ name: 'AuthenticationExtensionsClientInputs' })
export class ExtensionInputsModel {
  @ApiProperty({ description: 'Asks whether the new credential is discoverable.' })
  credProps!: boolean;
}

/** `POST /users/me/passkeys/options`: for `startRegistration({ optionsJSON })`. */
@ApiSchema({ name: 'PublicKeyCredentialCreationOptionsJSON' })
export class CreationOptionsModel {
  @ApiProperty({ type: RelyingPartyEntityModel })
  rp!: RelyingPartyEntityModel;

  @ApiProperty({ type: UserEntityModel })
  user!: UserEntityModel;

  @ApiProperty({ ...BASE64URL, description: 'Good once, for five minutes, on any instance.' })
  challenge!: string;

  @ApiProperty({ type: [CredentialParametersModel], description: 'ES256, EdDSA, RS256.' })
  pubKeyCredParams!: CredentialParametersModel[];

  @ApiProperty({ type: 'integer', example: 300000, description: 'Milliseconds.' })
  timeout!: number;

  @ApiProperty({ type: [CredentialDescriptorModel], description: "The account's passkeys." })
  excludeCredentials!: CredentialDescriptorModel[];

  @ApiProperty({ type: AuthenticatorSelectionModel })
  authenticatorSelection!: AuthenticatorSelectionModel;

  @ApiProperty({
    type: 'array',
    items: { type: 'string', enum: ['hybrid', 'security-key', 'client-device'] },
    example: [],
  })
  hints!: Array<'hybrid' | 'security-key' | 'client-device'>;

  @ApiProperty({ enum: ['none'], description: "No authenticator's make is asked for or kept." })
  attestation!: 'none';

  @ApiProperty({ type: ExtensionInputsModel })
  extensions!: ExtensionInputsModel;
}

/**
 * `POST /auth/passkey/options` and `POST /auth/mfa/passkey/options`: for
 * `startAuthentication({ optionsJSON })`.
 */
@ApiSchema({ name: 'PublicKeyCredentialRequestOptionsJSON' })
export class RequestOptionsModel {
  @ApiProperty({ ...BASE64URL, description: 'Good once, for five minutes, on any instance.' })
  challenge!: string;

  @ApiProperty({ type: 'integer', example: 300000, description: 'Milliseconds.' })
  timeout!: number;

  @ApiProperty({ example: 'auth.example.com', description: 'WEBAUTHN_RP_ID.' })
  rpId!: string;

  @ApiProperty({
    type: [CredentialDescriptorModel],
    description:
      "Empty for a sign-in (the authenticator offers the account's discoverable passkey); the " +
      "account's passkeys for a second step.",
  })
  allowCredentials!: CredentialDescriptorModel[];

  @ApiProperty({
    enum: ['required', 'preferred'],
    description: '`required` for a sign-in, `preferred` for a second step.',
  })
  userVerification!: 'required' | 'preferred';
}
