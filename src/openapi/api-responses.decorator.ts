import { Type, applyDecorators } from '@nestjs/common';
import { ApiExtraModels, ApiHeader, ApiResponse, DECORATORS, getSchemaPath } from '@nestjs/swagger';
import {
  HeaderObject,
  HeadersObject,
} from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { ERROR_CATALOGUE, ErrorCode } from '../common/errors/error-codes';
import { SecondFactorChallengeEnvelopeModel } from '../second-factor/second-factor.view';
import { ErrorEnvelopeModel, TokenResponseModel, UserEnvelopeModel } from './api-models';

/** A code at its catalogue status, or `[code, status]` where the contract gives it another. */
export type DocumentedError = ErrorCode | readonly [ErrorCode, number];

/** Errors every rate-limited route can answer. */
export const ANY_ROUTE: DocumentedError[] = ['RATE_LIMITED', 'INTERNAL_ERROR'];
/** Errors of a route that reads or writes the database. */
export const STORED: DocumentedError[] = [...ANY_ROUTE, 'SERVICE_UNAVAILABLE'];
/** Errors of any POST: the body parser runs before the route, even where it takes no body. */
export const ANY_BODY: DocumentedError[] = ['PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'];
/** Errors of a JSON body: too large, not JSON, or not what the route takes. */
export const JSON_BODY: DocumentedError[] = ['VALIDATION_ERROR', ...ANY_BODY];

export const SET_COOKIES: Record<'Set-Cookie', HeaderObject> = {
  'Set-Cookie': {
    description:
      'access_token (Path /) and refresh_token (Path /api/v1/auth): HttpOnly, Secure unless ' +
      'COOKIE_SECURE=false, SameSite from COOKIE_SAMESITE, Max-Age the token lifetime.',
    schema: { type: 'string' },
  },
};

/** The JWK Set and the server metadata: verifiers and proxies may keep them five minutes. */
export const PUBLIC_FIVE_MINUTES = 'public, max-age=300';

export const CACHE_FOR_FIVE_MINUTES: HeadersObject = {
  'Cache-Control': {
    description: 'Verifiers and caches may keep the document five minutes.',
    schema: { type: 'string', enum: [PUBLIC_FIVE_MINUTES] },
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
 * cannot disagree with what the filter sends. Several `ApiErrors` on one route (one from
 * `@Authenticated()`, one of the route's own) add up: codes of one status are merged, where
 * `@ApiResponse` would keep only the last schema. On a controller, they also join the routes'
 * own codes of the same status (Swagger would let a route's 403 hide the controller's), and a
 * controller's decorators run after its routes', so the routes are merged into here.
 */
export function ApiErrors(...errors: DocumentedError[]): MethodDecorator & ClassDecorator {
  return (target: object, key?: string | symbol, descriptor?: PropertyDescriptor) => {
    if (key === undefined && typeof target === 'function') {
      const prototype = target.prototype as Record<string, unknown>;
      for (const name of Object.getOwnPropertyNames(prototype)) {
        const method = prototype[name];
        if (name === 'constructor' || typeof method !== 'function') continue;
        const own = documentedCodes(method, false);
        const shared = errors.filter((entry) => own.has(statusOf(entry)));
        if (shared.length > 0) addErrors(method, shared, prototype, name);
      }
    }
    addErrors((descriptor?.value as object | undefined) ?? target, errors, target, key, descriptor);
  };
}

function statusOf(entry: DocumentedError): number {
  return typeof entry === 'string' ? ERROR_CATALOGUE[entry].status : entry[1];
}

function addErrors(
  holder: object,
  errors: DocumentedError[],
  target: object,
  key?: string | symbol,
  descriptor?: PropertyDescriptor,
): void {
  const byStatus = documentedCodes(holder);
  for (const entry of errors) {
    const code = typeof entry === 'string' ? entry : entry[0];
    const status = statusOf(entry);
    byStatus.set(status, (byStatus.get(status) ?? new Set()).add(code));
  }
  const responses = [...byStatus.entries()]
    .sort(([a], [b]) => a - b)
    .map(([status, codes]) => errorResponse(status, [...codes].sort()));
  const descriptorOf =
    descriptor ?? (key === undefined ? undefined : Object.getOwnPropertyDescriptor(target, key));
  applyDecorators(ApiExtraModels(ErrorEnvelopeModel), ...responses)(target, key, descriptorOf);
}

/**
 * The error codes already documented on a route, by status; their entries are taken out (to be
 * written again, merged) unless `take` is false.
 */
function documentedCodes(holder: object, take = true): Map<number, Set<ErrorCode>> {
  const responses = (Reflect.getMetadata(DECORATORS.API_RESPONSE, holder) ?? {}) as Record<
    string,
    { content?: { 'application/json'?: { schema?: ErrorSchema } } }
  >;
  const found = new Map<number, Set<ErrorCode>>();
  const rest: typeof responses = {};
  for (const [status, response] of Object.entries(responses)) {
    const codes =
      response.content?.['application/json']?.schema?.allOf?.[1]?.properties?.error?.enum;
    if (codes) found.set(Number(status), new Set(codes));
    else rest[status] = response;
  }
  if (take) Reflect.defineMetadata(DECORATORS.API_RESPONSE, rest, holder);
  return found;
}

interface ErrorSchema {
  allOf?: Array<{ properties?: { error?: { enum?: ErrorCode[] } } }>;
}

function errorResponse(status: number, codes: ErrorCode[]) {
  return ApiResponse({
    status,
    description: codes.map((code) => `\`${code}\``).join(', '),
    headers: RETRY_AFTER[status],
    // Always JSON, also where the route's success is a page or Prometheus text.
    content: {
      'application/json': {
        schema: {
          allOf: [
            { $ref: getSchemaPath(ErrorEnvelopeModel) },
            { properties: { error: { type: 'string', enum: codes } } },
          ],
        },
      },
    },
  });
}

/** The statuses that say when to try again (RETRY_AFTER_SECONDS, the rate limits). */
const RETRY_AFTER: Record<number, HeadersObject> = {
  429: {
    'Retry-After': { description: 'Seconds until a retry can pass.', schema: { type: 'integer' } },
  },
  503: {
    'Retry-After': {
      description:
        'Seconds to wait before trying again: what was down (the database, the mail server) ' +
        'may be back by then.',
      schema: { type: 'integer' },
    },
  },
};

/** A success answer in the envelope, `{ success: true, message, data? }`. */
export function ApiEnvelope(
  status: number,
  message: string,
  options: { data?: Type<unknown>; headers?: HeadersObject } = {},
): MethodDecorator {
  const { data, headers } = options;
  const envelope = {
    type: 'object',
    required: ['success', 'message', ...(data ? ['data'] : [])],
    properties: {
      success: { type: 'boolean', enum: [true] },
      message: { type: 'string', example: message },
      ...(data ? { data: { $ref: getSchemaPath(data) } } : {}),
    },
  };
  return applyDecorators(
    ...(data ? [ApiExtraModels(data)] : []),
    ApiResponse({ status, description: message, headers, schema: envelope }),
  );
}

/** The request header that picks login's and refresh's answer shape. */
export const TOKEN_DELIVERY = 'X-Token-Delivery';

/**
 * Login's and refresh's 200, whose shape the client picks with `X-Token-Delivery`: both shapes
 * as a `oneOf` of two named schemas, told apart by a property only one of them has, so that a
 * generated client narrows the answer without a cast. `secondFactor`: login's third shape, the
 * pending second step (`SecondFactorChallengeEnvelopeModel`, whose `data` has `mfa_required`).
 */
export function ApiTokenDelivery(message: string, secondFactor = false): MethodDecorator {
  const challenge = secondFactor
    ? ' For a user with a second factor, whatever the header: `SecondFactorChallengeEnvelopeModel` ' +
      '(`data.mfa_required`), no cookies and no tokens.'
    : '';
  return applyDecorators(
    ApiExtraModels(UserEnvelopeModel, TokenResponseModel, SecondFactorChallengeEnvelopeModel),
    ApiHeader({
      name: TOKEN_DELIVERY,
      required: false,
      schema: { type: 'string', enum: ['body'] },
      description:
        '`body` (in any case): the token response, for non-browser clients. Absent or any ' +
        'other value: the envelope, the tokens in cookies. A request a browser sent (it ' +
        'carries `Origin` or `Sec-Fetch-Site`) asking for `body` is 400 VALIDATION_ERROR: a ' +
        "page's script never reads the refresh token, and the header is not in the CORS " +
        'allow-list.',
    }),
    ApiResponse({
      status: 200,
      description:
        `${message}. Without \`${TOKEN_DELIVERY}: body\`: \`UserEnvelopeModel\` (has ` +
        '`success`), the tokens in Set-Cookie. With it: `TokenResponseModel` (has ' +
        '`access_token`), no envelope, no cookies.' +
        challenge,
      headers: {
        'Set-Cookie': {
          ...SET_COOKIES['Set-Cookie'],
          description: `Envelope shape only. ${SET_COOKIES['Set-Cookie'].description}`,
        },
      },
      schema: {
        oneOf: [
          { $ref: getSchemaPath(UserEnvelopeModel) },
          { $ref: getSchemaPath(TokenResponseModel) },
          ...(secondFactor ? [{ $ref: getSchemaPath(SecondFactorChallengeEnvelopeModel) }] : []),
        ],
      },
    }),
  );
}
