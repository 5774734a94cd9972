import { Controller, Get, Header, Res, applyDecorators } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { ApiOperation, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import { randomBytes } from 'node:crypto';
import { HttpResponse } from '../common/http/http-request';
import { renderView } from '../common/views/pug-views';
import { AppConfig, SecurityConfig } from '../config/config.sections';
import { ANY_ROUTE, ApiErrors } from '../openapi/api-responses.decorator';
import { ApiPublic } from '../openapi/security-schemes';

/** The page reads the token in the browser and posts it when the person confirms. */
const LinkPage = (summary: string, description: string) =>
  applyDecorators(
    ApiOperation({ summary, description }),
    ApiQuery({
      name: 'token',
      required: false,
      description: "From the emailed link; read by the page's script, never by the server.",
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

/**
 * Where an emailed link leads when the request gave no `applicationUrl`. Mail scanners open
 * links, so a GET only shows a page; the token is used when the person presses its button.
 */
@ApiTags('email')
@ApiPublic()
@Controller('auth')
export class LinkPagesController {
  constructor(
    private readonly app: AppConfig,
    private readonly security: SecurityConfig,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  @Get('verify-email')
  @LinkPage(
    'The page an emailed verification link opens (no applicationUrl given)',
    'Opening it changes nothing, so mail scanners that follow links cannot use the token up: ' +
      "the page's button posts the token to POST /auth/verify-email.",
  )
  verifyEmailPage(@Res({ passthrough: true }) res: HttpResponse): Promise<string> {
    return this.render(res, 'verify-email', 'Verify your email');
  }

  @Get('reset-password')
  @LinkPage(
    'The page an emailed reset link opens (no applicationUrl given)',
    'Opening it changes nothing, so mail scanners that follow links cannot use the token up: ' +
      'the page asks for the new password and posts it with the token to POST ' +
      '/auth/reset-password.',
  )
  resetPasswordPage(@Res({ passthrough: true }) res: HttpResponse): Promise<string> {
    return this.render(res, 'reset-password', 'Reset your password');
  }

  /** The page, under a policy that lets only its own nonce-marked script and style run. */
  private async render(res: HttpResponse, page: string, title: string): Promise<string> {
    const nonce = randomBytes(16).toString('base64');
    const html = await renderView(`pages/${page}`, {
      title,
      nonce,
      appName: this.app.appName,
      minLength: this.security.passwordMinLength,
    });
    this.adapterHost.httpAdapter.setHeader(
      res,
      'Content-Security-Policy',
      `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; ` +
        "connect-src 'self'; form-action 'none'; base-uri 'none'; frame-ancestors 'none'",
    );
    return html;
  }
}
