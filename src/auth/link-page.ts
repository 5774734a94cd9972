import { Header, applyDecorators } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { ApiOperation, ApiQuery, ApiResponse } from '@nestjs/swagger';
import { randomBytes } from 'node:crypto';
import { HttpResponse } from '../common/http/http-request';
import { renderView } from '../common/views/pug-views';
import { ANY_ROUTE, ApiErrors } from '../openapi/api-responses.decorator';

/**
 * A page an emailed link opens (`views/pages/<name>.pug`). The page reads the token in the
 * browser and posts it to its own path when the person confirms.
 */
export const LinkPage = (summary: string, description: string) =>
  applyDecorators(
    ApiOperation({ summary, description }),
    ApiQuery({
      name: 'token',
      required: false,
      description: "From the emailed link; read by the page's script, never by the server.",
      schema: { type: 'string' },
    }),
    ApiResponse({
      status: 200,
      description: 'The HTML page.',
      content: { 'text/html': { schema: { type: 'string' } } },
    }),
    ApiErrors(...ANY_ROUTE),
    Header('Content-Type', 'text/html; charset=utf-8'),
    Header('Cache-Control', 'no-store'),
    Header('Referrer-Policy', 'no-referrer'),
  );

/** The page, under a policy that lets only its own nonce-marked script and style run. */
export async function renderLinkPage(
  adapterHost: HttpAdapterHost,
  res: HttpResponse,
  page: string,
  locals: Record<string, unknown>,
): Promise<string> {
  const nonce = randomBytes(16).toString('base64');
  const html = await renderView(`pages/${page}`, { ...locals, nonce });
  adapterHost.httpAdapter.setHeader(
    res,
    'Content-Security-Policy',
    `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; ` +
      "connect-src 'self'; form-action 'none'; base-uri 'none'; frame-ancestors 'none'",
  );
  return html;
}
