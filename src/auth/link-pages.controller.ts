import { Controller, Get, Res } from '@nestjs/common';
import { FastifyReply } from 'fastify';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { compileFile, compileTemplate } from 'pug';
import { AppConfig, SecurityConfig } from '../config/config.sections';
import { VIEWS_DIR } from '../mail/mail.module';

const compiled = new Map<string, compileTemplate>();

/** Compiled on first use: Pug's compiler is heavy, and most processes never serve these pages. */
function page(name: 'verify-email' | 'reset-password'): compileTemplate {
  let template = compiled.get(name);
  if (!template) {
    template = compileFile(join(VIEWS_DIR, 'pages', `${name}.pug`));
    compiled.set(name, template);
  }
  return template;
}

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
  verifyEmailPage(@Res() res: FastifyReply): void {
    this.render(res, page('verify-email'), 'Verify your email');
  }

  @Get('reset-password')
  resetPasswordPage(@Res() res: FastifyReply): void {
    this.render(res, page('reset-password'), 'Reset your password');
  }

  private render(res: FastifyReply, page: compileTemplate, title: string): void {
    const nonce = randomBytes(16).toString('base64');
    void res
      .header(
        'Content-Security-Policy',
        `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; ` +
          "connect-src 'self'; form-action 'none'; base-uri 'none'; frame-ancestors 'none'",
      )
      .header('Cache-Control', 'no-store')
      .header('Referrer-Policy', 'no-referrer')
      .type('text/html; charset=utf-8')
      .send(
        page({
          title,
          nonce,
          appName: this.app.appName,
          minLength: this.security.passwordMinLength,
        }),
      );
  }
}
