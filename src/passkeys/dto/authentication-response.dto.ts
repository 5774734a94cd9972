import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsObject, ValidateNested } from 'class-validator';
import {
  AttachmentField,
  Base64UrlField,
  CredentialIdField,
  CredentialTypeField,
  ExtensionResultsField,
} from './credential-fields';

/** `AuthenticatorAssertionResponseJSON`. */
@ApiSchema({ name: 'AuthenticatorAssertionResponseJSON' })
export class AssertionResponseDto {
  @Base64UrlField('clientDataJSON')
  clientDataJSON!: string;

  @Base64UrlField('authenticatorData')
  authenticatorData!: string;

  @Base64UrlField('signature')
  signature!: string;

  /** The account's handle, which a discoverable credential carries. */
  @Base64UrlField('userHandle', false, 128)
  userHandle?: string;
}

/** `AuthenticationResponseJSON`: what `startAuthentication()` of @simplewebauthn/browser answers. */
@ApiSchema({ name: 'AuthenticationResponseJSON' })
export class AuthenticationResponseDto {
  @CredentialIdField('id')
  id!: string;

  @CredentialIdField('rawId')
  rawId!: string;

  @ApiProperty({ type: AssertionResponseDto })
  @IsObject({ message: 'response must be an object' })
  @ValidateNested()
  @Type(() => AssertionResponseDto)
  response!: AssertionResponseDto;

  @AttachmentField()
  authenticatorAttachment?: string;

  @ExtensionResultsField()
  clientExtensionResults!: Record<string, unknown>;

  @CredentialTypeField()
  type!: string;
}
