import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import {
  IsIn,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
} from 'class-validator';

/**
 * Fields of WebAuthn's own JSON (`RegistrationResponseJSON`, `AuthenticationResponseJSON`), as
 * `@simplewebauthn/browser` sends them. Checked here for shape only (base64url text of a sane
 * length); what they say is the relying party's to verify, and any fault there is 401
 * INVALID_PASSKEY.
 */

/** An attestation object with a large certificate chain stays well under this. */
const MAX_BASE64URL = 16_384;
const BASE64URL = /^[A-Za-z0-9_-]*$/;

export const Base64UrlField = (name: string, required = true, maxLength = MAX_BASE64URL) =>
  applyDecorators(
    (required ? ApiProperty : ApiPropertyOptional)({
      description: 'base64url, without padding.',
      maxLength,
      pattern: '^[A-Za-z0-9_-]*$',
    }),
    ...(required ? [IsNotEmpty({ message: `${name} must not be empty` })] : [IsOptional()]),
    IsString({ message: `${name} must be a string` }),
    MaxLength(maxLength, { message: `${name} must be at most ${maxLength} characters long` }),
    Matches(BASE64URL, { message: `${name} must be base64url text` }),
  );

/** `public-key`, the one credential type WebAuthn has. */
export const CredentialTypeField = () =>
  applyDecorators(
    ApiProperty({ enum: ['public-key'] }),
    IsString({ message: 'type must be a string' }),
    IsIn(['public-key'], { message: 'type must be public-key' }),
  );

export const AttachmentField = () =>
  applyDecorators(
    ApiPropertyOptional({ enum: ['platform', 'cross-platform'] }),
    IsOptional(),
    IsString({ message: 'authenticatorAttachment must be a string' }),
    IsIn(['platform', 'cross-platform'], {
      message: 'authenticatorAttachment must be platform or cross-platform',
    }),
  );

/**
 * `AuthenticationExtensionsClientOutputs`, as @simplewebauthn/browser types the results it sends:
 * listed (not an open map, which its interface would not fit without a cast) though the service
 * reads none. Any other extension's results are accepted and ignored alike.
 */
@ApiSchema({ name: 'AuthenticationExtensionsClientOutputs' })
export class ExtensionResultsModel {
  @ApiPropertyOptional()
  appid?: boolean;

  @ApiPropertyOptional({
    type: 'object',
    properties: { rk: { type: 'boolean' } },
    description: 'Whether the credential is discoverable, when the browser says.',
  })
  credProps?: { rk?: boolean };

  @ApiPropertyOptional()
  hmacCreateSecret?: boolean;
}

/** What the browser's extensions said: passed through unread. */
export const ExtensionResultsField = () =>
  applyDecorators(
    ApiProperty({ type: ExtensionResultsModel }),
    IsObject({ message: 'clientExtensionResults must be an object' }),
  );

/** A credential id: base64url of at most 1023 bytes. */
export const CredentialIdField = (name: string) => Base64UrlField(name, true, 1400);
