import {
  Controller,
  Headers,
  HttpCode,
  Injectable,
  Module,
  OnModuleInit,
  Post,
  Res,
} from '@nestjs/common';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { AuthModule } from '../../src/auth/auth.module';
import { AuthService } from '../../src/auth/auth.service';
import { Public } from '../../src/auth/decorators/public.decorator';
import { SessionDelivery } from '../../src/auth/session-delivery.service';
import { SignInMethodsModule } from '../../src/auth/sign-in-methods.module';
import { SignInMethodRegistry } from '../../src/auth/sign-in-methods.registry';
import { TokenDelivery, TokenDeliveryMode } from '../../src/auth/token-delivery.decorator';
import { AppException } from '../../src/common/errors/app.exception';
import { ok } from '../../src/common/http/envelope';
import { HttpResponse } from '../../src/common/http/http-request';
import { Client, ClientInfo } from '../../src/common/http/request-context';
import { UsersModule } from '../../src/users/users.module';
import { UsersService } from '../../src/users/users.service';

/**
 * A toy way in, for the seam's test and as the example to copy: a request signed for a user
 * with a key the service shares with the caller (`X-Signed-User: <user id>.<HMAC of it>`), for
 * the users enrolled in it. It registers itself with the core and starts sessions through the
 * core's API; no file of the core names it.
 */
export const SIGNED_HEADER = 'signed_header';
const KEY = 'toy-signed-header-key';

export function signedFor(userId: string): string {
  return `${userId}.${createHmac('sha256', KEY).update(userId).digest('base64url')}`;
}

/** Who may sign in this way (a real method would keep them in a table of its own). */
@Injectable()
export class SignedHeaderKeys {
  readonly enrolled = new Set<string>();

  /** The user the header names, when it is signed and the user enrolled. */
  userOf(header: string | undefined): string | null {
    const [userId, mac] = (header ?? '').split('.');
    if (!userId || !mac) return null;
    const expected = Buffer.from(signedFor(userId));
    const given = Buffer.from(header!);
    const valid = expected.length === given.length && timingSafeEqual(expected, given);
    return valid && this.enrolled.has(userId) ? userId : null;
  }
}

@Injectable()
class SignedHeaderWayIn implements OnModuleInit {
  constructor(
    private readonly registry: SignInMethodRegistry,
    private readonly keys: SignedHeaderKeys,
  ) {}

  onModuleInit(): void {
    this.registry.register({
      id: SIGNED_HEADER,
      order: 100,
      // RFC 8176: proof of possession of a key.
      amr: ['pop'],
      listed: true,
      enabled: () => true,
      heldBy: (_manager, userId) => Promise.resolve(this.keys.enrolled.has(userId) ? 1 : 0),
    });
  }
}

// Anyone may call it: the signed header is its own proof.
@Public()
@Controller('auth/signed-header')
class SignedHeaderController {
  constructor(
    private readonly keys: SignedHeaderKeys,
    private readonly users: UsersService,
    private readonly auth: AuthService,
    private readonly delivery: SessionDelivery,
  ) {}

  @Post()
  @HttpCode(200)
  async signIn(
    @Headers('x-signed-user') header: string | undefined,
    @TokenDelivery() delivery: TokenDeliveryMode,
    @Res({ passthrough: true }) res: HttpResponse,
    @Client() client: ClientInfo,
  ) {
    const userId = this.keys.userOf(header);
    const user = userId === null ? null : await this.users.findById(userId);
    if (!user || user.disabledAt) throw new AppException('LOGIN_FAILED');
    const result = await this.auth.firstStepPassed(user, { method: SIGNED_HEADER }, client);
    if ('mfa_required' in result) return ok('Second factor required', result);
    return this.delivery.deliver(res, result, delivery, 'Login successful');
  }
}

@Module({
  imports: [AuthModule, SignInMethodsModule, UsersModule],
  controllers: [SignedHeaderController],
  providers: [SignedHeaderKeys, SignedHeaderWayIn],
})
export class SignedHeaderModule {}
