import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsEmail, IsNotEmpty, IsString, IsUrl, Matches, MaxLength } from 'class-validator';
import { PLAIN_ADDRESS } from '../../common/validation/email-address';
import { EMAIL_ADDRESS } from '../../openapi/email-address.property';

export const trim = ({ value }: { value: unknown }) =>
  typeof value === 'string' ? value.trim() : value;

/** An email address as typed, trimmed; at most 254 characters. `field` names it in messages. */
export const EmailField = (field = 'email') =>
  applyDecorators(
    ApiProperty({ ...EMAIL_ADDRESS, maxLength: 254 }),
    Transform(trim),
    IsString({ message: `${field} must be a string` }),
    MaxLength(254, { message: `${field} must be at most 254 characters long` }),
    IsEmail({}, { message: `${field} must be a valid email address` }),
    Matches(PLAIN_ADDRESS, { message: `${field} must be a valid email address` }),
  );

/** Where an emailed link leads; its origin is checked against APP_ORIGINS by the flow. */
export const ApplicationUrlField = () =>
  applyDecorators(
    ApiPropertyOptional({
      format: 'uri',
      description:
        "The application page the emailed link opens (its origin must be in APP_ORIGINS); the service's own page when absent.",
      example: 'http://localhost:5173/verify',
    }),
    IsUrl(
      { protocols: ['http', 'https'], require_protocol: true, require_tld: false },
      { message: 'applicationUrl must be an http(s) URL' },
    ),
  );

/** An emailed token: a non-empty string of sane length, so no lookup ever runs on an absent value. */
export const TokenField = () =>
  applyDecorators(
    ApiProperty({ description: 'The token from the emailed link.', maxLength: 256 }),
    IsString({ message: 'token must be a string' }),
    IsNotEmpty({ message: 'token must not be empty' }),
    MaxLength(256, { message: 'token must be at most 256 characters long' }),
  );
