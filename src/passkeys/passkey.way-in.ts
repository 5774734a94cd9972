import { Injectable, OnModuleInit } from '@nestjs/common';
import { SignInMethodRegistry } from '../auth/sign-in-methods.registry';
import { PasskeysService } from './passkeys.service';

export const PASSKEY = 'passkey';

/**
 * Passkeys as a way in: always offered; verified by its person, two factors alone (`hwk` bound
 * to its hardware, `swk` synced, RFC 8176); held as many times as the account has passkeys; a
 * second step for a user who has one.
 */
@Injectable()
export class PasskeyWayIn implements OnModuleInit {
  constructor(
    private readonly registry: SignInMethodRegistry,
    private readonly passkeys: PasskeysService,
  ) {}

  onModuleInit(): void {
    this.registry.register({
      id: PASSKEY,
      order: 20,
      amr: ['hwk', 'swk'],
      multiFactor: true,
      listed: true,
      enabled: () => true,
      heldBy: (manager, userId) => this.passkeys.lockedCount(manager, userId),
      secondStepsOf: async (userId) => ((await this.passkeys.hasAny(userId)) ? [PASSKEY] : []),
    });
  }
}
