import { Injectable } from '@nestjs/common';
import { PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import { AppException } from '../common/errors/app.exception';
import { ClientInfo } from '../common/http/request-context';
import { AuthService, Session } from '../auth/auth.service';
import { SignInMethodRegistry } from '../auth/sign-in-methods.registry';
import { UsersService } from '../users/users.service';
import { AuthenticationResponseDto } from './dto/authentication-response.dto';
import { PasskeyAssertions } from './passkey-assertions.service';
import { PASSKEY } from './passkey.way-in';

/**
 * Signing in with a passkey, no email typed: the authenticator offers the account's discoverable
 * credential, verified by the person (user verification), which makes it both factors. The
 * session is the one a login starts, its `amr` `hwk` (or `swk` for a synced passkey). Also the
 * options of a login's second step by passkey, for the user its challenge stands for.
 */
@Injectable()
export class PasskeySignIn {
  constructor(
    private readonly auth: AuthService,
    private readonly assertions: PasskeyAssertions,
    private readonly users: UsersService,
    private readonly waysIn: SignInMethodRegistry,
  ) {}

  options(): Promise<PublicKeyCredentialRequestOptionsJSON> {
    return this.assertions.signInOptions();
  }

  /**
   * 401 INVALID_PASSKEY for any fault, a disabled account's passkey included: nothing tells a
   * holder of someone's credential more than that it did not work. 403 SSO_REQUIRED, and no
   * session, for an account whose address must sign in through its domain's provider: the
   * passkey names the account, so its address is judged once the passkey has proven it (a
   * passkey added before the rule, or before the domain's provider was marked the only way in).
   */
  async signIn(response: AuthenticationResponseDto, client: ClientInfo): Promise<Session> {
    const proven = await this.assertions.verify('sign_in', null, response, client);
    const user = await this.users.findById(proven.userId);
    if (!user || user.disabledAt) throw new AppException('INVALID_PASSKEY');
    this.auth.refuseSsoDomain(user.email);
    try {
      return await this.auth.startSession(
        user,
        this.waysIn.amrOf({ method: PASSKEY, amr: proven.method }),
        client,
      );
    } catch (error) {
      // Disabled or reset meanwhile: refused as any other passkey fault.
      if (error instanceof AppException && error.code === 'LOGIN_FAILED') {
        throw new AppException('INVALID_PASSKEY');
      }
      throw error;
    }
  }

  /** 401 INVALID_TOKEN for a challenge that is not open; the user's passkeys listed otherwise. */
  async secondFactorOptions(challenge: string): Promise<PublicKeyCredentialRequestOptionsJSON> {
    const user = await this.auth.pendingUser(challenge);
    return this.assertions.secondFactorOptions(user.id);
  }
}
