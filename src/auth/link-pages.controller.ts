import { Controller, Get, Res } from '@nestjs/common';
import { FastifyReply } from 'fastify';
import { randomBytes } from 'node:crypto';
import { renderView } from '../common/views/pug-views';
import { AppConfig, SecurityConfig } from '../config/config.sections';

/**
 * Where an emailed link leads when the request gave no `applicationUrl`. Mail scanners open
 * links, so a GET only shows a page; the token is used when the person presses its button.
 */
@Controller('auth')
export class LinkPagesController {
  constructor(
    private readonly app: AppConfig,
    private readonly security: SecurityConfig,
  ) {}

  @Get('verify-email')
  verifyEmailPage(@Res() res: FastifyReply): Promise<void> {
    return this.render(res, 'verify-email', 'Verify your email');
  }

  @Get('reset-password')
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
