import { Injectable, OnModuleInit } from '@nestjs/common';
import { SignInMethodRegistry } from '../auth/sign-in-methods.registry';
import { addPasskeyProofs } from './dto/passkey-proof.fields';
import { AuthenticationResponseDto } from './dto/authentication-response.dto';
import { PasskeyAssertions } from './passkey-assertions.service';
import { PasskeysService } from './passkeys.service';

export const PASSKEY = 'passkey';

/**
 * Passkeys as a way in: always offered; verified by its person, two factors alone (`hwk` bound
 * to its hardware, `swk` synced, RFC 8176); held as many times as the account has passkeys; a
 * second step and a step-up for a user who has one, answered in the `passkey` field.
 */
@Injectable()
export class PasskeyWayIn implements OnModuleInit {
  constructor(
    private readonly registry: SignInMethodRegistry,
    private readonly passkeys: PasskeysService,
    private readonly assertions: PasskeyAssertions,
  ) {}

  onModuleInit(): void {
    addPasskeyProofs();
    this.registry.register({
      id: PASSKEY,
      order: 20,
      amr: ['hwk', 'swk'],
      multiFactor: true,
      listed: true,
      enabled: () => true,
      heldBy: (manager, userId) => this.passkeys.lockedCount(manager, userId),
      secondStepsOf: async (userId) => ((await this.passkeys.hasAny(userId)) ? [PASSKEY] : []),
      stepUpFor: (user) => this.passkeys.hasAny(user.id),
      answers: {
        fields: ['passkey'],
        purposes: ['second_factor', 'reauthentication'],
        check: async (user, answer, purpose, client) => {
          const response = answer.passkey as AuthenticationResponseDto;
          const proven = await this.assertions.verify(purpose, user.id, response, client);
          return { method: PASSKEY, amr: proven.method };
        },
      },
    });
  }
}
