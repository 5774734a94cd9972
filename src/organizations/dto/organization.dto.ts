import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsNotEmpty, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { trim } from '../../auth/dto/fields';
import { SLUG_PATTERN } from '../slug';

const NameField = (required: boolean) =>
  applyDecorators(
    (required ? ApiProperty : ApiPropertyOptional)({
      description: "The organization's name, 1 to 100 characters (trimmed).",
      maxLength: 100,
      example: 'Acme',
    }),
    Transform(trim),
    IsString({ message: 'name must be a string' }),
    IsNotEmpty({ message: 'name must not be empty' }),
    MaxLength(100, { message: 'name must be at most 100 characters long' }),
  );

const SlugField = () =>
  applyDecorators(
    ApiPropertyOptional({
      description:
        '3 to 48 of `a-z 0-9 -`, not starting or ending with `-`; unique. Derived from the name ' +
        'when left out at creation.',
      pattern: SLUG_PATTERN.source,
      example: 'acme',
    }),
    IsOptional(),
    IsString({ message: 'slug must be a string' }),
    Matches(SLUG_PATTERN, {
      message: 'slug must be 3 to 48 of a-z, 0-9 and -, not starting or ending with -',
    }),
  );

/** `POST /organizations`. */
export class CreateOrganizationDto {
  @NameField(true)
  name!: string;

  @SlugField()
  slug?: string;
}

/** `PATCH /organizations/:orgId`: the name (an admin), the slug (an owner). */
export class UpdateOrganizationDto {
  @IsOptional()
  @NameField(false)
  name?: string;

  @SlugField()
  slug?: string;
}
