import { Controller, Get, Res } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { ApiTags } from '@nestjs/swagger';
import { HttpResponse } from '../common/http/http-request';
import { AppConfig, SecurityConfig } from '../config/config.sections';
import { LinkPage, renderLinkPage } from '../auth/link-page';
import { Public } from '../auth/decorators/public.decorator';

/**
 * Where an emailed link leads when the request gave no `applicationUrl`. Mail scanners open
 * links, so a GET only shows a page; the token is used when the person presses its button.
 */
@ApiTags('email')
@Public()
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

  private render(res: HttpResponse, page: string, title: string): Promise<string> {
    return renderLinkPage(this.adapterHost, res, page, {
      title,
      appName: this.app.appName,
      minLength: this.security.passwordMinLength,
    });
  }
}
