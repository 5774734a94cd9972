import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import {
  AttachmentField,
  Base64UrlField,
  CredentialIdField,
  CredentialTypeField,
  ExtensionResultsField,
} from './credential-fields';

/** `AuthenticatorAttestationResponseJSON`. */
@ApiSchema({ name: 'AuthenticatorAttestationResponseJSON' })
export class AttestationResponseDto {
  @Base64UrlField('clientDataJSON')
  clientDataJSON!: string;

  @Base64UrlField('attestationObject')
  attestationObject!: string;

  @Base64UrlField('authenticatorData', false)
  authenticatorData?: string;

  @ApiPropertyOptional({ type: [String], example: ['internal', 'hybrid'] })
  @IsOptional()
  @IsArray({ message: 'transports must be a list' })
  @ArrayMaxSize(10, { message: 'transports must list at most 10 transports' })
  @IsString({ each: true, message: 'each transport must be a string' })
  @MaxLength(32, { each: true, message: 'each transport must be at most 32 characters long' })
  transports?: string[];

  @ApiPropertyOptional({ example: -7, description: 'The COSE algorithm of the new key.' })
  @IsOptional()
  @IsInt({ message: 'publicKeyAlgorithm must be an integer' })
  publicKeyAlgorithm?: number;

  @Base64UrlField('publicKey', false)
  publicKey?: string;
}

/** `RegistrationResponseJSON`: what `startRegistration()` of @simplewebauthn/browser answers. */
@ApiSchema({ name: 'RegistrationResponseJSON' })
export class RegistrationResponseDto {
  @CredentialIdField('id')
  id!: string;

  @CredentialIdField('rawId')
  rawId!: string;

  @ApiProperty({ type: AttestationResponseDto })
  @IsObject({ message: 'response must be an object' })
  @ValidateNested()
  @Type(() => AttestationResponseDto)
  response!: AttestationResponseDto;

  @AttachmentField()
  authenticatorAttachment?: string;

  @ExtensionResultsField()
  clientExtensionResults!: Record<string, unknown>;

  @CredentialTypeField()
  type!: string;
}
