import { Injectable, Logger } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { PublicKeyCredentialCreationOptionsJSON } from '@simplewebauthn/server';
import { randomBytes } from 'node:crypto';
import { EntityManager, Repository } from 'typeorm';
import { DomainEvents } from '../events/domain-events.service';
import { AppException } from '../common/errors/app.exception';
import { ClientInfo } from '../common/http/request-context';
import { Database } from '../database/database.service';
import { Metrics } from '../metrics/metrics.service';
import { SsoRequirement } from '../auth/sso-requirement';
import { hashToken } from '../tokens/token-hash';
import { SignInMethodRegistry } from '../auth/sign-in-methods.registry';
import { User } from '../users/user.entity';
import { RegistrationResponseDto } from './dto/registration-response.dto';
import { cleanPasskeyName } from './dto/passkey-name.field';
import { Passkey } from './passkey.entity';
import { CeremonyRefused, RelyingParty, challengeOf } from './relying-party';
import { WebAuthnChallenges } from './webauthn-challenges.service';

/** The name of a passkey registered without one. */
const DEFAULT_NAME = 'Passkey';

/** The WebAuthn user handle of an account: its id's bytes (opaque, and no personal data). */
export function userHandleOf(userId: string): Buffer {
  return Buffer.from(userId, 'utf8');
}

/**
 * A user's passkeys: registration, list, rename and removal; the one service that writes the
 * passkeys table (PasskeyAssertions reads it and moves counters). Whoever calls decides who may
 * (a recent sign-in for a registration): this service checks the ceremony.
 */
@Injectable()
export class PasskeysService {
  private readonly logger = new Logger(PasskeysService.name);

  constructor(
    @InjectRepository(Passkey) private readonly passkeys: Repository<Passkey>,
    private readonly database: Database,
    private readonly challenges: WebAuthnChallenges,
    private readonly relyingParty: RelyingParty,
    private readonly events: DomainEvents,
    private readonly metrics: Metrics,
    private readonly sso: SsoRequirement,
    private readonly waysIn: SignInMethodRegistry,
  ) {}

  /** Oldest first. */
  list(userId: string): Promise<Passkey[]> {
    return this.passkeys.find({ where: { userId }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  async hasAny(userId: string): Promise<boolean> {
    return this.passkeys.existsBy({ userId });
  }

  /**
   * 403 SSO_REQUIRED for an account whose address must sign in through its domain's provider:
   * a passkey would be a way in that the organisation cannot switch off.
   */
  async registrationOptions(user: User): Promise<PublicKeyCredentialCreationOptionsJSON> {
    this.sso.refuse(user.email);
    const challenge = this.challenges.issue('registration', user.id);
    const existing = await this.list(user.id);
    return this.relyingParty.registrationOptions(
      { handle: userHandleOf(user.id), name: user.email, displayName: user.username },
      challenge,
      existing.map((passkey) => ({ id: passkey.credentialId, transports: transportsOf(passkey) })),
    );
  }

  /**
   * The browser's answer to `registrationOptions`: its challenge is used up first, then the
   * attestation is checked; any fault is 401 INVALID_PASSKEY (and audited). 403 SSO_REQUIRED as
   * for the options: the domain may have become SSO-only since they were handed out.
   */
  async register(
    user: User,
    response: RegistrationResponseDto,
    name: string | undefined,
    client: ClientInfo,
  ): Promise<Passkey> {
    this.sso.refuse(user.email);
    const challenge = challengeOf(response.response.clientDataJSON);
    let passkey: Passkey;
    try {
      if (
        challenge === null ||
        !(await this.challenges.claim(challenge, 'registration', user.id))
      ) {
        throw new CeremonyRefused('invalid', 'unknown, used or expired challenge');
      }
      const credential = await this.relyingParty.verifyRegistration(response, challenge);
      passkey = await this.database.transaction(async (manager) => {
        const row: Passkey = {
          id: `pk_${randomBytes(10).toString('hex')}`,
          userId: user.id,
          credentialHash: hashToken(credential.id),
          credentialId: credential.id,
          publicKey: Buffer.from(credential.publicKey).toString('base64url'),
          counter: credential.counter,
          transports: credential.transports.join(',').slice(0, 255) || null,
          deviceType: credential.deviceType,
          backedUp: credential.backedUp,
          name: name === undefined ? DEFAULT_NAME : cleanPasskeyName(name),
          createdAt: new Date(),
          lastUsedAt: null,
        };
        // Registered already (to this account or another): an authenticator answers one
        // registration ceremony with one new credential, so only a replayed answer gets here.
        const rows = manager.withRepository(this.passkeys);
        if (await rows.existsBy({ credentialHash: row.credentialHash })) {
          throw new CeremonyRefused('invalid', 'credential registered already');
        }
        await rows.insert(row);
        await this.events.publish(manager, {
          type: 'passkey.added',
          data: { user, passkey: { id: row.id, name: row.name } },
          origin: { client },
        });
        return row;
      });
    } catch (error) {
      if (!(error instanceof CeremonyRefused)) throw error;
      return this.refused(error, user.id, client);
    }
    return passkey;
  }

  async rename(userId: string, id: string, name: string, client: ClientInfo): Promise<Passkey> {
    return this.database.transaction(async (manager) => {
      const rows = manager.withRepository(this.passkeys);
      const passkey = await rows.findOneBy({ id, userId });
      if (!passkey) throw new AppException('PASSKEY_NOT_FOUND');
      passkey.name = cleanPasskeyName(name);
      await rows.update({ id, userId }, { name: passkey.name });
      await this.events.signal(manager, {
        type: 'passkey.renamed',
        userId,
        origin: { client },
      });
      return passkey;
    });
  }

  /**
   * Never the last way in: an account that holds no other (a password, another passkey, a
   * linked identity: what the ways in registered) keeps its last passkey (409
   * LAST_SIGN_IN_METHOD). Every way in's rows are locked first, in the registry's order, as an
   * identity's unlinking locks them, so two removals of an account's last two ways in run one
   * after the other and the second sees one left.
   */
  async remove(user: User, id: string, client: ClientInfo): Promise<void> {
    const userId = user.id;
    await this.database.transaction(async (manager) => {
      const held = await this.waysIn.lockHeld(manager, userId);
      const rows = manager.withRepository(this.passkeys);
      const passkey = await rows.findOneBy({ id, userId });
      if (!passkey) throw new AppException('PASSKEY_NOT_FOUND');
      held.refuseRemoving();
      await rows.delete({ id, userId });
      await this.events.publish(manager, {
        type: 'passkey.removed',
        data: { user, passkey: { id, name: passkey.name } },
        origin: { client },
      });
    });
  }

  /** How many passkeys the user has, locked for the rest of the caller's transaction. */
  async lockedCount(manager: EntityManager, userId: string): Promise<number> {
    const owned = await manager
      .withRepository(this.passkeys)
      .find({ select: { id: true }, where: { userId }, lock: this.database.rowLock });
    return owned.length;
  }

  /** An account's removal: its passkeys go with it, before the user row. */
  async removeAll(manager: EntityManager, userId: string): Promise<void> {
    await manager.withRepository(this.passkeys).delete({ userId });
  }

  private async refused(
    error: CeremonyRefused,
    userId: string,
    client: ClientInfo,
  ): Promise<never> {
    this.logger.warn({
      requestId: client.requestId,
      msg: `A passkey registration of ${userId} was refused: ${error.detail}`,
    });
    this.metrics.passkey('registration', 'failed');
    await this.events.signalAlone({ type: 'passkey.failed', userId, origin: { client } });
    throw new AppException('INVALID_PASSKEY');
  }
}

export function transportsOf(passkey: Passkey): string[] | undefined {
  return passkey.transports ? passkey.transports.split(',') : undefined;
}
