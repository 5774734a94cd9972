import { Injectable, Logger } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import { Repository } from 'typeorm';
import { DomainEvents } from '../events/domain-events.service';
import { AppException } from '../common/errors/app.exception';
import { ClientInfo } from '../common/http/request-context';
import { Metrics } from '../metrics/metrics.service';
import { hashToken } from '../tokens/token-hash';
import { AuthenticationResponseDto } from './dto/authentication-response.dto';
import { Passkey } from './passkey.entity';
import { transportsOf, userHandleOf } from './passkeys.service';
import { CeremonyRefused, RelyingParty, challengeOf } from './relying-party';
import { WebAuthnChallenges } from './webauthn-challenges.service';

/**
 * A passkey ceremony that signs someone in, alone or after their password, or confirms a
 * signed-in session again (a step-up).
 */
export type SignInCeremony = 'sign_in' | 'second_factor' | 'reauthentication';

/** Who a passkey proved to be, and how (RFC 8176: `hwk` bound to hardware, `swk` synced). */
export interface ProvenPasskey {
  userId: string;
  method: 'hwk' | 'swk';
}

/**
 * Passkeys that sign in: the options a browser is handed and the check of its assertion. A
 * passwordless sign-in asks for user verification (the passkey is both factors) and lists no
 * credentials (the authenticator offers the account's own); a second factor lists the user's
 * passkeys and takes presence alone (the password was the other factor). The challenge is used
 * up before anything else, the counter must move forward (else refused, and audited as a possible
 * clone), and every fault is one answer: 401 INVALID_PASSKEY.
 */
@Injectable()
export class PasskeyAssertions {
  private readonly logger = new Logger(PasskeyAssertions.name);

  constructor(
    @InjectRepository(Passkey) private readonly passkeys: Repository<Passkey>,
    private readonly challenges: WebAuthnChallenges,
    private readonly relyingParty: RelyingParty,
    private readonly events: DomainEvents,
    private readonly metrics: Metrics,
  ) {}

  /** Writes nothing: the challenge carries its own proof (WebAuthnChallenges). */
  signInOptions(): Promise<PublicKeyCredentialRequestOptionsJSON> {
    const challenge = this.challenges.issue('sign_in', null);
    return this.relyingParty.authenticationOptions(challenge, [], 'required');
  }

  secondFactorOptions(userId: string): Promise<PublicKeyCredentialRequestOptionsJSON> {
    return this.ownedOptions('second_factor', userId);
  }

  /**
   * A step-up with one of the user's passkeys: listed, as for a second step, but with user
   * verification required, as for a passwordless sign-in: the passkey alone confirms the person.
   */
  reauthenticationOptions(userId: string): Promise<PublicKeyCredentialRequestOptionsJSON> {
    return this.ownedOptions('reauthentication', userId);
  }

  private async ownedOptions(
    ceremony: Exclude<SignInCeremony, 'sign_in'>,
    userId: string,
  ): Promise<PublicKeyCredentialRequestOptionsJSON> {
    const challenge = this.challenges.issue(ceremony, userId);
    const owned = await this.passkeys.findBy({ userId });
    return this.relyingParty.authenticationOptions(
      challenge,
      owned.map((passkey) => ({ id: passkey.credentialId, transports: transportsOf(passkey) })),
      ceremony === 'second_factor' ? 'preferred' : 'required',
    );
  }

  /** `userId`: the user of a second factor; null for a passwordless sign-in (the key names them). */
  async verify(
    ceremony: SignInCeremony,
    userId: string | null,
    response: AuthenticationResponseDto,
    client: ClientInfo,
  ): Promise<ProvenPasskey> {
    let passkey: Passkey | null = null;
    try {
      const challenge = challengeOf(response.response.clientDataJSON);
      if (challenge === null || !(await this.challenges.claim(challenge, ceremony, userId))) {
        throw new CeremonyRefused('invalid', 'unknown, used or expired challenge');
      }
      passkey = await this.passkeys.findOneBy({ credentialHash: hashToken(response.id) });
      if (!passkey || (userId !== null && passkey.userId !== userId)) {
        throw new CeremonyRefused('invalid', 'no such passkey of the account');
      }
      // Absent (or null) when the passkey was listed by id; when there, it must be its account's.
      const handle: unknown = response.response.userHandle;
      if (
        typeof handle === 'string' &&
        handle !== userHandleOf(passkey.userId).toString('base64url')
      ) {
        throw new CeremonyRefused('invalid', 'the user handle is not the passkey’s account');
      }
      const assertion = await this.relyingParty.verifyAuthentication(
        response,
        challenge,
        {
          id: passkey.credentialId,
          publicKey: new Uint8Array(Buffer.from(passkey.publicKey, 'base64url')),
          counter: passkey.counter,
          transports: transportsOf(passkey),
        },
        // Presence is enough only after a password: alone, the passkey is both factors.
        ceremony !== 'second_factor',
      );
      await this.moveCounter(passkey, assertion);
      this.metrics.passkey(ceremony, 'ok');
      const method = assertion.deviceType === 'multiDevice' || assertion.backedUp ? 'swk' : 'hwk';
      return { userId: passkey.userId, method };
    } catch (error) {
      if (!(error instanceof CeremonyRefused)) throw error;
      return this.refused(ceremony, error, passkey?.userId ?? userId, client);
    }
  }

  /**
   * Counters only move forward, in one conditional statement, so two answers racing on two
   * instances cannot both take the same step. Authenticators that keep no counter (0) skip it.
   */
  private async moveCounter(
    passkey: Passkey,
    assertion: { newCounter: number; deviceType: string; backedUp: boolean },
  ): Promise<void> {
    const changes = {
      counter: assertion.newCounter,
      lastUsedAt: new Date(),
      deviceType: assertion.deviceType,
      backedUp: assertion.backedUp,
    };
    const update = this.passkeys
      .createQueryBuilder()
      .update()
      .set(changes)
      .where('id = :id', { id: passkey.id });
    if (assertion.newCounter > 0) {
      update.andWhere('counter < :counter', { counter: assertion.newCounter });
    }
    const moved = await update.execute();
    if (moved.affected !== 1) {
      throw new CeremonyRefused('counter', `counter ${assertion.newCounter} was taken already`);
    }
  }

  private async refused(
    ceremony: SignInCeremony,
    error: CeremonyRefused,
    userId: string | null,
    client: ClientInfo,
  ): Promise<never> {
    this.logger.warn({
      requestId: client.requestId,
      msg: `A passkey ${ceremony} ${userId ? `of ${userId} ` : ''}was refused: ${error.detail}`,
    });
    const clone = error.reason === 'counter';
    this.metrics.passkey(ceremony, clone ? 'counter_rejected' : 'failed');
    if (userId !== null) {
      await this.events.signalAlone({
        type: clone ? 'passkey.counter_rejected' : 'passkey.failed',
        userId,
        origin: { client },
      });
    }
    throw new AppException('INVALID_PASSKEY');
  }
}
