import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayNotEmpty,
  IsArray,
  IsIn,
  IsOptional,
  IsString,
  MaxLength,
} from 'class-validator';
import { DOMAIN_EVENT_TYPES } from '../../events/domain-event.catalogue';

/** What an endpoint may subscribe to: any catalogue name but the test (sent to its own endpoint). */
export const SUBSCRIBABLE = [
  '*',
  ...DOMAIN_EVENT_TYPES.filter((type) => type !== 'webhook.test'),
] as const;

export const MAX_URL_LENGTH = 2048;
export const MAX_DESCRIPTION_LENGTH = 500;

export const UrlField = (required: boolean) =>
  applyDecorators(
    (required ? ApiProperty : ApiPropertyOptional)({
      format: 'uri',
      maxLength: MAX_URL_LENGTH,
      example: 'https://hooks.example.com/auth',
      description:
        'Where events are POSTed. In production `https://` only (unless WEBHOOK_ALLOW_HTTP) ' +
        'and never a loopback, private or reserved address (unless ' +
        'WEBHOOK_ALLOW_PRIVATE_NETWORKS).',
    }),
    IsString({ message: 'url must be a string' }),
    MaxLength(MAX_URL_LENGTH, { message: `url must be at most ${MAX_URL_LENGTH} characters` }),
  );

export const EventsField = (required: boolean) =>
  applyDecorators(
    (required ? ApiProperty : ApiPropertyOptional)({
      enum: SUBSCRIBABLE,
      isArray: true,
      example: ['user.created', 'session.created'],
      description: 'The events to send, by name, or `["*"]` for all of them.',
    }),
    IsArray({ message: 'events must be a list of event names' }),
    ArrayNotEmpty({ message: 'events must name at least one event (or "*")' }),
    ArrayMaxSize(SUBSCRIBABLE.length, {
      message: `events must list at most ${SUBSCRIBABLE.length} names`,
    }),
    IsIn(SUBSCRIBABLE, {
      each: true,
      message: `events must be "*" or names among: ${SUBSCRIBABLE.slice(1).join(', ')}`,
    }),
  );

export const DescriptionField = () =>
  applyDecorators(
    ApiPropertyOptional({ type: String, nullable: true, maxLength: MAX_DESCRIPTION_LENGTH }),
    IsOptional(),
    IsString({ message: 'description must be a string' }),
    MaxLength(MAX_DESCRIPTION_LENGTH, {
      message: `description must be at most ${MAX_DESCRIPTION_LENGTH} characters`,
    }),
  );
