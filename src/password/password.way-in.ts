import { Injectable, OnModuleInit } from '@nestjs/common';
import { hasPassword } from '../users/user.entity';
import { UsersService } from '../users/users.service';
import { CurrentPassword } from '../auth/current-password.service';
import { SignInMethodRegistry } from '../auth/sign-in-methods.registry';
import { addPasswordProof } from './dto/password-proof.field';

export const PASSWORD = 'password';
export const PASSWORD_AMR: readonly string[] = Object.freeze(['pwd']);

/**
 * The password: always offered, RFC 8176 `pwd`; held by an account that has one; a step-up's
 * proof (`password`).
 */
@Injectable()
export class PasswordWayIn implements OnModuleInit {
  constructor(
    private readonly registry: SignInMethodRegistry,
    private readonly users: UsersService,
    private readonly currentPassword: CurrentPassword,
  ) {}

  onModuleInit(): void {
    addPasswordProof();
    this.registry.register({
      id: PASSWORD,
      order: 10,
      amr: PASSWORD_AMR,
      listed: true,
      enabled: () => true,
      // Read without a lock: a password is never removed, only set, so nothing racing this
      // could take it away.
      heldBy: async (manager, userId) => {
        const user = await this.users.findIn(manager, userId);
        return user && hasPassword(user) ? 1 : 0;
      },
      stepUpFor: (user) => Promise.resolve(hasPassword(user)),
      answers: {
        fields: ['password'],
        purposes: ['reauthentication'],
        check: async (user, answer) => {
          await this.currentPassword.confirm(user, answer.password as string);
          return { method: PASSWORD };
        },
      },
    });
  }
}
