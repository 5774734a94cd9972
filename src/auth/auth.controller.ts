import { Body, Controller, Get, Headers, HttpCode, Post, Res, UseGuards } from '@nestjs/common';
import { FastifyReply } from 'fastify';
import { Envelope, ok } from '../common/http/envelope';
import { Client, ClientInfo } from '../common/http/request-context';
import { RequestUser } from '../common/http/request-user.decorator';
import { StrictThrottle } from '../common/throttling/strict-throttle.decorator';
import { RefreshClaims } from '../tokens/refresh-tokens.service';
import { User } from '../users/user.entity';
import { PublicUser, publicUser, tokenResponseUser } from '../users/user.view';
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

type UserEnvelope = Envelope<{ user: PublicUser }>;

@Controller('auth')
export class AuthController {
  constructor(
    private readonly auth: AuthService,
    private readonly cookies: AuthCookies,
  ) {}

  @Post('register')
  @StrictThrottle()
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
  async login(
    @Body() body: LoginDto,
    @Headers(TOKEN_DELIVERY_HEADER) delivery: string | undefined,
    @Res({ passthrough: true }) res: FastifyReply,
    @Client() client: ClientInfo,
  ) {
    return this.deliver(await this.auth.login(body, client), delivery, res, 'Login successful');
  }

  @Post('refresh')
  @HttpCode(200)
  @UseGuards(RefreshTokenGuard)
  async refresh(
    @RequestUser() claims: RefreshClaims,
    @Headers(TOKEN_DELIVERY_HEADER) delivery: string | undefined,
    @Res({ passthrough: true }) res: FastifyReply,
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
  async logout(
    @RequestUser() principal: User | RefreshClaims,
    @Res({ passthrough: true }) res: FastifyReply,
    @Client() client: ClientInfo,
  ): Promise<Envelope> {
    await this.auth.logout(principal, client);
    this.cookies.clear(res);
    return ok('Logged out from all devices');
  }

  @Get('verify-token')
  @UseGuards(AccessTokenGuard)
  verifyTokenGet(@RequestUser() user: User): UserEnvelope {
    return ok('Token is valid', { user: publicUser(user) });
  }

  @Post('verify-token')
  @HttpCode(200)
  @UseGuards(AccessTokenGuard)
  verifyTokenPost(@RequestUser() user: User): UserEnvelope {
    return this.verifyTokenGet(user);
  }

  private deliver(
    session: Session,
    delivery: string | undefined,
    res: FastifyReply,
    message: string,
  ) {
    const { user, tokens } = session;
    if (delivery?.trim().toLowerCase() === 'body') {
      void res.header('Cache-Control', 'no-store');
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
