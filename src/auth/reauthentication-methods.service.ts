import { Injectable } from '@nestjs/common';
import { User, hasPassword } from '../users/user.entity';
import { ProfileProofs, REAUTHENTICATION_METHODS } from '../users/user.view';
import { SignInMethodRegistry } from './sign-in-methods.registry';

/**
 * Which proofs an account has, for the client that must ask for one it can give: a page never
 * asks a passwordless account for a password. Each way in says whether the user can step up
 * with it.
 */
@Injectable()
export class ReauthenticationMethods {
  constructor(private readonly waysIn: SignInMethodRegistry) {}

  async of(user: User): Promise<ProfileProofs> {
    const held = await this.waysIn.stepUpsOf(user);
    return {
      hasPassword: hasPassword(user),
      methods: REAUTHENTICATION_METHODS.filter((method) => held.has(method)),
    };
  }
}
