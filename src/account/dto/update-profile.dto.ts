import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsString, Matches, ValidateBy, ValidateIf } from 'class-validator';
import { trim } from '../../auth/dto/fields';
import { USERNAME_PATTERN } from '../../users/identity.normalizer';
import {
  MAX_NAME_LENGTH,
  MAX_PICTURE_LENGTH,
  PICTURE_MESSAGE,
  nameProblem,
  normalizePicture,
} from '../profile-fields';

/**
 * `PATCH /users/me`: each field present is set, each absent one kept; `null` (and an empty name)
 * clears `name` and `picture`. A username cannot be cleared.
 */
export class UpdateProfileDto {
  @ApiPropertyOptional({ pattern: USERNAME_PATTERN.source, example: 'ann' })
  // Validated whenever present, null included: `null` is not a username.
  @ValidateIf((dto: UpdateProfileDto) => dto.username !== undefined)
  @Transform(trim)
  @IsString({ message: 'username must be a string' })
  @Matches(USERNAME_PATTERN, {
    message: 'username must be 3 to 32 letters, digits, dots, underscores or hyphens',
  })
  username?: string;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    maxLength: MAX_NAME_LENGTH,
    example: 'Ann Lee',
    description:
      'Display name, trimmed and stored in NFC, at most 100 characters, no control ' +
      'characters; an empty string or null clears it.',
  })
  @ValidateIf((dto: UpdateProfileDto) => dto.name !== undefined)
  @ValidateBy({
    name: 'displayName',
    validator: {
      validate: (value: unknown) => nameProblem(value) === undefined,
      defaultMessage: (args) => nameProblem(args?.value) ?? 'name is invalid',
    },
  })
  name?: string | null;

  @ApiPropertyOptional({
    type: String,
    format: 'uri',
    nullable: true,
    maxLength: MAX_PICTURE_LENGTH,
    example: 'https://cdn.example.com/ann.png',
    description:
      'An https URL of a picture stored elsewhere (nothing is uploaded here), without ' +
      'user name or password; null clears it.',
  })
  @ValidateIf((dto: UpdateProfileDto) => dto.picture !== undefined && dto.picture !== null)
  @ValidateBy({
    name: 'pictureUrl',
    validator: {
      validate: (value: unknown) => normalizePicture(value) !== undefined,
      defaultMessage: () => PICTURE_MESSAGE,
    },
  })
  picture?: string | null;
}
