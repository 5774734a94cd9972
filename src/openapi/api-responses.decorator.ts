import { Type, applyDecorators } from '@nestjs/common';
import { ApiExtraModels, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import { HeadersObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { ERROR_CATALOGUE, ErrorCode } from '../common/errors/error-codes';
import { ErrorEnvelopeModel } from './api-models';

/** A code at its catalogue status, or `[code, status]` where the contract gives it another. */
export type DocumentedError = ErrorCode | readonly [ErrorCode, number];

/** Errors every rate-limited route can answer. */
export const ANY_ROUTE: DocumentedError[] = ['RATE_LIMITED', 'INTERNAL_ERROR'];
/** Errors of a route that reads or writes the database. */
export const STORED: DocumentedError[] = [...ANY_ROUTE, 'SERVICE_UNAVAILABLE'];
/** Errors of a JSON body: too large, not JSON, or not what the route takes. */
export const JSON_BODY: DocumentedError[] = [
  'VALIDATION_ERROR',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
];

export const SET_COOKIES: HeadersObject = {
  'Set-Cookie': {
    description:
      'access_token (Path /) and refresh_token (Path /api/v1/auth): HttpOnly, Secure unless ' +
      'COOKIE_SECURE=false, SameSite from COOKIE_SAMESITE, Max-Age the token lifetime.',
    schema: { type: 'string' },
  },
};

export const CLEAR_COOKIES: HeadersObject = {
  'Set-Cookie': {
    description: 'Clears access_token and refresh_token.',
    schema: { type: 'string' },
  },
};

/**
 * Every error an endpoint can answer, one response per status, each listing its codes (and only
 * those in the schema's `error` enum). Statuses come from the one catalogue, so the document
 * cannot disagree with what the filter sends.
 */
export function ApiErrors(...errors: DocumentedError[]): MethodDecorator & ClassDecorator {
  const byStatus = new Map<number, Set<ErrorCode>>();
  for (const entry of errors) {
    const [code, status] =
      typeof entry === 'string' ? [entry, ERROR_CATALOGUE[entry].status] : entry;
    byStatus.set(status, (byStatus.get(status) ?? new Set()).add(code));
  }
  const responses = [...byStatus.entries()]
    .sort(([a], [b]) => a - b)
    .map(([status, codes]) =>
      ApiResponse({
        status,
        description: [...codes].map((code) => `\`${code}\``).join(', '),
        headers: status === 429 ? RETRY_AFTER : undefined,
        // Always JSON, also where the route's success is a page or Prometheus text.
        content: {
          'application/json': {
            schema: {
              allOf: [
                { $ref: getSchemaPath(ErrorEnvelopeModel) },
                { properties: { error: { type: 'string', enum: [...codes].sort() } } },
              ],
            },
          },
        },
      }),
    );
  return applyDecorators(ApiExtraModels(ErrorEnvelopeModel), ...responses);
}

const RETRY_AFTER: HeadersObject = {
  'Retry-After': { description: 'Seconds until a retry can pass.', schema: { type: 'integer' } },
};

/**
 * A success answer in the envelope, `{ success: true, message, data? }`; with `orBody`, the
 * alternative shape the same status can have (the body-token login).
 */
export function ApiEnvelope(
  status: number,
  message: string,
  options: { data?: Type<unknown>; headers?: HeadersObject; orBody?: Type<unknown> } = {},
): MethodDecorator {
  const { data, headers, orBody } = options;
  const envelope = {
    type: 'object',
    required: ['success', 'message', ...(data ? ['data'] : [])],
    properties: {
      success: { type: 'boolean', enum: [true] },
      message: { type: 'string', example: message },
      ...(data ? { data: { $ref: getSchemaPath(data) } } : {}),
    },
  };
  const models = [data, orBody].filter((model): model is Type<unknown> => model !== undefined);
  return applyDecorators(
    ...(models.length > 0 ? [ApiExtraModels(...models)] : []),
    ApiResponse({
      status,
      description: message,
      headers,
      schema: orBody ? { oneOf: [envelope, { $ref: getSchemaPath(orBody) }] } : envelope,
    }),
  );
}
