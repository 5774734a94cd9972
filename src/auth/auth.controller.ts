import { Body, Controller, Get, Headers, HttpCode, Post, Res, UseGuards } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { ApiHeader, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Envelope, ok } from '../common/http/envelope';
import { HttpResponse } from '../common/http/http-request';
import { Client, ClientInfo } from '../common/http/request-context';
import { RequestUser } from '../common/http/request-user.decorator';
import { StrictThrottle } from '../common/throttling/strict-throttle.decorator';
import { RefreshClaims } from '../tokens/refresh-tokens.service';
import { User } from '../users/user.entity';
import { publicUser, tokenResponseUser } from '../users/user.view';
import { TokenResponseModel, UserDataModel } from '../openapi/api-models';
import {
  ANY_BODY,
  ApiEnvelope,
  ApiErrors,
  CLEAR_COOKIES,
  JSON_BODY,
  SET_COOKIES,
  STORED,
} from '../openapi/api-responses.decorator';
import { ApiAccessToken, ApiRefreshCookie } from '../openapi/security-schemes';
import { AuthCookies } from './auth-cookies.service';
import { AuthService, Session } from './auth.service';
import { LoginDto } from './dto/login.dto';
import { RegisterDto } from './dto/register.dto';
import { AccessTokenGuard, LogoutGuard, RefreshTokenGuard } from './guards/token.guard';

/**
 * Non-browser clients send `X-Token-Delivery: body` to login or refresh and get the tokens in the
 * body (the contract's second login shape) instead of cookies.
 */
export const TOKEN_DELIVERY_HEADER = 'x-token-delivery';

type UserEnvelope = Envelope<UserDataModel>;

const TokenDelivery = () =>
  ApiHeader({
    name: 'X-Token-Delivery',
    required: false,
    enum: ['body'],
    description:
      '`body`: the tokens in the body (no envelope, no cookies), for non-browser clients.',
  });

@ApiTags('auth')
@Controller('auth')
export class AuthController {
  constructor(
    private readonly auth: AuthService,
    private readonly cookies: AuthCookies,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  @Post('register')
  @StrictThrottle()
  @ApiOperation({ summary: 'Create an account and mail its verification link' })
  @ApiEnvelope(201, 'Registration successful. Check your email to verify your account.', {
    data: UserDataModel,
  })
  @ApiErrors(['REGISTRATION_FAILED', 400], 'REGISTRATION_FAILED', ...JSON_BODY, ...STORED)
  async register(@Body() body: RegisterDto, @Client() client: ClientInfo): Promise<UserEnvelope> {
    const { user, emailSent } = await this.auth.register(body, client);
    const message = emailSent
      ? 'Registration successful. Check your email to verify your account.'
      : 'Registration successful, but the verification email could not be sent. Request a new one.';
    return ok(message, { user: publicUser(user) });
  }

  @Post('login')
  @HttpCode(200)
  @StrictThrottle()
  @ApiOperation({
    summary: 'Log in with email and password; tokens in cookies (or the body)',
    description:
      'Failed logins slow the account down, from any address and on every instance: while it waits (LOGIN_BACKOFF_*), the answer is 429 RATE_LIMITED with Retry-After, whatever the password.',
  })
  @TokenDelivery()
  @ApiEnvelope(200, 'Login successful', {
    data: UserDataModel,
    headers: SET_COOKIES,
    orBody: TokenResponseModel,
  })
  @ApiErrors(['LOGIN_FAILED', 400], 'LOGIN_FAILED', ...ANY_BODY, ...STORED)
  async login(
    @Body() body: LoginDto,
    @Headers(TOKEN_DELIVERY_HEADER) delivery: string | undefined,
    @Res({ passthrough: true }) res: HttpResponse,
    @Client() client: ClientInfo,
  ) {
    return this.deliver(await this.auth.login(body, client), delivery, res, 'Login successful');
  }

  @Post('refresh')
  @HttpCode(200)
  @UseGuards(RefreshTokenGuard)
  @ApiOperation({
    summary: 'Rotate the refresh token and issue a new access token',
    description:
      'A retired refresh token presented again within REFRESH_REUSE_GRACE seconds gets the same successor; later, it revokes every session of the user.',
  })
  @ApiRefreshCookie()
  @TokenDelivery()
  @ApiEnvelope(200, 'Token refreshed', {
    data: UserDataModel,
    headers: SET_COOKIES,
    orBody: TokenResponseModel,
  })
  @ApiErrors('INVALID_TOKEN', 'FORBIDDEN_ORIGIN', ...ANY_BODY, ...STORED)
  async refresh(
    @RequestUser() claims: RefreshClaims,
    @Headers(TOKEN_DELIVERY_HEADER) delivery: string | undefined,
    @Res({ passthrough: true }) res: HttpResponse,
    @Client() client: ClientInfo,
  ) {
    try {
      return this.deliver(
        await this.auth.refresh(claims, client),
        delivery,
        res,
        'Token refreshed',
      );
    } catch (error) {
      // A dead refresh token is of no further use to the browser: stop it from retrying.
      this.cookies.clear(res);
      throw error;
    }
  }

  @Post('logout')
  @HttpCode(200)
  @UseGuards(LogoutGuard)
  @ApiOperation({
    summary: 'End every session of the user, on every device',
    description: 'Takes the access token, or the refresh cookie when the access token has expired.',
  })
  @ApiAccessToken()
  @ApiRefreshCookie()
  @ApiEnvelope(200, 'Logged out from all devices', { headers: CLEAR_COOKIES })
  @ApiErrors('INVALID_TOKEN', 'FORBIDDEN_ORIGIN', ...ANY_BODY, ...STORED)
  async logout(
    @RequestUser() principal: User | RefreshClaims,
    @Res({ passthrough: true }) res: HttpResponse,
    @Client() client: ClientInfo,
  ): Promise<Envelope> {
    await this.auth.logout(principal, client);
    this.cookies.clear(res);
    return ok('Logged out from all devices');
  }

  @Get('verify-token')
  @UseGuards(AccessTokenGuard)
  @ApiOperation({ summary: 'Check an access token and return its user' })
  @ApiAccessToken()
  @ApiEnvelope(200, 'Token is valid', { data: UserDataModel })
  @ApiErrors('INVALID_TOKEN', ...STORED)
  verifyTokenGet(@RequestUser() user: User): UserEnvelope {
    return ok('Token is valid', { user: publicUser(user) });
  }

  @Post('verify-token')
  @HttpCode(200)
  @UseGuards(AccessTokenGuard)
  @ApiOperation({ summary: 'Check an access token and return its user (POST form)' })
  @ApiAccessToken()
  @ApiEnvelope(200, 'Token is valid', { data: UserDataModel })
  @ApiErrors('INVALID_TOKEN', 'FORBIDDEN_ORIGIN', ...ANY_BODY, ...STORED)
  verifyTokenPost(@RequestUser() user: User): UserEnvelope {
    return this.verifyTokenGet(user);
  }

  private deliver(
    session: Session,
    delivery: string | undefined,
    res: HttpResponse,
    message: string,
  ): TokenResponseModel | UserEnvelope {
    const { user, tokens } = session;
    if (delivery?.trim().toLowerCase() === 'body') {
      this.adapterHost.httpAdapter.setHeader(res, 'Cache-Control', 'no-store');
      return {
        access_token: tokens.accessToken,
        refresh_token: tokens.refreshToken,
        token_type: 'Bearer',
        expires_in: tokens.accessExpiresIn,
        user: tokenResponseUser(user),
      };
    }
    this.cookies.set(res, tokens);
    return ok(message, { user: publicUser(user) });
  }
}
