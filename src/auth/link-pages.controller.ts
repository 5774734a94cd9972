import { Controller, Get, Res, applyDecorators } from '@nestjs/common';
import { ApiOperation, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import { FastifyReply } from 'fastify';
import { randomBytes } from 'node:crypto';
import { renderView } from '../common/views/pug-views';
import { AppConfig, SecurityConfig } from '../config/config.sections';
import { ANY_ROUTE, ApiErrors } from '../openapi/api-responses.decorator';

/** The page reads the token in the browser and posts it when the person confirms. */
const LinkPage = (summary: string) =>
  applyDecorators(
    ApiOperation({ summary }),
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
  );

/**
 * Where an emailed link leads when the request gave no `applicationUrl`. Mail scanners open
 * links, so a GET only shows a page; the token is used when the person presses its button.
 */
@ApiTags('email')
@Controller('auth')
export class LinkPagesController {
  constructor(
    private readonly app: AppConfig,
    private readonly security: SecurityConfig,
  ) {}

  @Get('verify-email')
  @LinkPage('The page an emailed verification link opens (no applicationUrl given)')
  verifyEmailPage(@Res() res: FastifyReply): Promise<void> {
    return this.render(res, 'verify-email', 'Verify your email');
  }

  @Get('reset-password')
  @LinkPage('The page an emailed reset link opens (no applicationUrl given)')
  resetPasswordPage(@Res() res: FastifyReply): Promise<void> {
    return this.render(res, 'reset-password', 'Reset your password');
  }

  private async render(res: FastifyReply, page: string, title: string): Promise<void> {
    const nonce = randomBytes(16).toString('base64');
    const html = await renderView(`pages/${page}`, {
      title,
      nonce,
      appName: this.app.appName,
      minLength: this.security.passwordMinLength,
    });
    void res
      .header(
        'Content-Security-Policy',
        `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; ` +
          "connect-src 'self'; form-action 'none'; base-uri 'none'; frame-ancestors 'none'",
      )
      .header('Cache-Control', 'no-store')
      .header('Referrer-Policy', 'no-referrer')
      .type('text/html; charset=utf-8')
      .send(html);
  }
}
