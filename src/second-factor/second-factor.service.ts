import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { toString as qrSvg } from 'qrcode';
import { EntityManager, IsNull, Repository } from 'typeorm';
import { DomainEvents } from '../events/domain-events.service';
import { AppException } from '../common/errors/app.exception';
import { ClientInfo } from '../common/http/request-context';
import { AppConfig } from '../config/config.sections';
import { Database } from '../database/database.service';
import { User } from '../users/user.entity';
import { RECOVERY_CODES, newRecoveryCode, recoveryCodeHash } from './recovery-codes';
import { RecoveryCode } from './recovery-code.entity';
import { SecretBox } from '../common/crypto/secret-box';
import { newTotpSecret, totpStepOf, totpUri } from './totp';
import { UserSecondFactor } from './user-second-factor.entity';

export interface SecondFactorStatus {
  totp: boolean;
  recovery_codes_left: number;
}

export interface TotpEnrolment {
  /** Base32, for typing into an authenticator app by hand. */
  secret: string;
  otpauth_url: string;
  /** The `otpauth://` URI as a QR code, an SVG `data:` URL an `<img>` shows as it is. */
  qr_svg: string;
}

/** The ways to answer a login's second step, in the order a sign-in page offers them. */
export type SecondFactorMethod = 'totp' | 'recovery_code';

/**
 * A user's second factor (TOTP, RFC 6238) and recovery codes: the one service that touches
 * user_mfa and mfa_recovery_codes. Enrolment is pending until a first code confirms it; a code
 * is accepted within one step of now and once, on every instance (the last accepted step is
 * stored and only a later one passes). Secrets are sealed at rest (SecretBox). Whoever calls
 * decides what may be done (a recent sign-in, the password): this service checks codes.
 */
@Injectable()
export class SecondFactorService {
  constructor(
    @InjectRepository(UserSecondFactor) private readonly factors: Repository<UserSecondFactor>,
    @InjectRepository(RecoveryCode) private readonly codes: Repository<RecoveryCode>,
    private readonly database: Database,
    private readonly box: SecretBox,
    private readonly app: AppConfig,
    private readonly events: DomainEvents,
  ) {}

  async status(userId: string): Promise<SecondFactorStatus> {
    return {
      totp: (await this.enabledFactor(this.factors.manager, userId)) !== null,
      recovery_codes_left: await this.codes.countBy({ userId, usedAt: IsNull() }),
    };
  }

  /** Which of these users have two-step sign-in on. */
  async enabledAmong(userIds: string[]): Promise<Set<string>> {
    if (userIds.length === 0) return new Set();
    const rows = await this.factors
      .createQueryBuilder('mfa')
      .select('mfa.userId', 'userId')
      .where('mfa.userId IN (:...userIds) AND mfa.totpSecret IS NOT NULL', { userIds })
      .getRawMany<{ userId: string }>();
    return new Set(rows.map((row) => row.userId));
  }

  /** How the user can answer a login's second step; empty when they have no second factor. */
  async methodsOf(userId: string): Promise<SecondFactorMethod[]> {
    const factor = await this.enabledFactor(this.factors.manager, userId);
    return factor ? ['totp', 'recovery_code'] : [];
  }

  /**
   * A pending enrolment: a new secret, shown once, switched on only once a code computed from it
   * confirms it (`confirmTotp`). A new call replaces a pending one.
   */
  async beginTotp(user: User): Promise<TotpEnrolment> {
    const secret = newTotpSecret();
    await this.database.transaction(async (manager) => {
      if (await this.enabledFactor(manager, user.id)) {
        throw new AppException('VALIDATION_ERROR', {
          message: 'Two-step sign-in is already on: switch it off before enrolling again',
        });
      }
      const now = new Date();
      await this.upsert(manager, user.id, {
        pendingSecret: this.box.seal(secret),
        pendingAt: now,
        updatedAt: now,
      });
    });
    const otpauth = totpUri(secret, this.app.appName, user.email);
    const svg = await qrSvg(otpauth, { type: 'svg', margin: 1 });
    return {
      secret,
      otpauth_url: otpauth,
      qr_svg: `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`,
    };
  }

  /**
   * Switches the pending enrolment on with a code computed from it; answers the 10 recovery
   * codes, shown this once. 401 INVALID_MFA_CODE for a wrong code (the caller counts it).
   */
  async confirmTotp(user: User, code: string, client: ClientInfo): Promise<string[]> {
    const recovery = await this.database.transaction(async (manager) => {
      const row = await manager
        .withRepository(this.factors)
        .findOne({ where: { userId: user.id }, lock: this.database.rowLock });
      if (!row?.pendingSecret) {
        throw new AppException('VALIDATION_ERROR', {
          message: 'No enrolment is pending: start one first',
        });
      }
      const step = totpStepOf(this.box.open(row.pendingSecret), code);
      if (step === null) throw invalidCode();
      const now = new Date();
      await manager.withRepository(this.factors).update(
        { userId: user.id },
        {
          totpSecret: row.pendingSecret,
          totpEnabledAt: now,
          totpLastStep: step,
          pendingSecret: null,
          pendingAt: null,
          updatedAt: now,
        },
      );
      const codes = await this.replaceRecoveryCodes(manager, user.id);
      await this.events.publish(manager, {
        type: 'mfa.enabled',
        data: { user },
        origin: { client },
      });
      return codes;
    });
    return recovery;
  }

  /** 10 new recovery codes; the old ones stop working. Only with the second factor on. */
  regenerateRecoveryCodes(user: User, client: ClientInfo): Promise<string[]> {
    return this.database.transaction(async (manager) => {
      if (!(await this.enabledFactor(manager, user.id))) throw notEnabled();
      const codes = await this.replaceRecoveryCodes(manager, user.id);
      await this.events.signal(manager, {
        type: 'mfa.recovery_codes_generated',
        userId: user.id,
        origin: { client },
      });
      return codes;
    });
  }

  /**
   * Switches the second factor off (the user, having proved who they are, or an administrator:
   * `actorId`), and voids the recovery codes. The user is mailed either way.
   */
  async disable(user: User, client: ClientInfo, actorId: string | null = null): Promise<void> {
    await this.database.transaction(async (manager) => {
      if (!(await this.enabledFactor(manager, user.id))) throw notEnabled();
      await this.removeAll(manager, user.id);
      await this.events.publish(manager, {
        type: 'mfa.disabled',
        data: { user },
        origin: { client, actorId },
      });
    });
  }

  /**
   * Whether `code` is a current TOTP code of the user's factor, used now: accepted once, on every
   * instance (the stored last step only moves forward, in one conditional statement).
   */
  async useTotpCode(userId: string, code: string): Promise<boolean> {
    return this.database.transaction(async (manager) => {
      const factor = await this.enabledFactor(manager, userId);
      if (!factor?.totpSecret) return false;
      const step = totpStepOf(this.box.open(factor.totpSecret), code);
      if (step === null) return false;
      const claimed = await manager
        .withRepository(this.factors)
        .createQueryBuilder()
        .update()
        .set({ totpLastStep: step })
        .where('user_id = :userId AND (totp_last_step IS NULL OR totp_last_step < :step)', {
          userId,
          step,
        })
        .execute();
      if (claimed.affected !== 1) return false;
      // A secret sealed before MFA_ENCRYPTION_KEY was rotated: sealed again, now it is open.
      if (!this.box.sealedWithCurrent(factor.totpSecret)) {
        await manager
          .withRepository(this.factors)
          .update({ userId }, { totpSecret: this.box.seal(this.box.open(factor.totpSecret)) });
      }
      return true;
    });
  }

  /** Whether `typed` is one of the user's unused recovery codes, used up now (and mailed). */
  async useRecoveryCode(user: User, typed: string, client: ClientInfo): Promise<boolean> {
    return this.database.transaction(async (manager) => {
      const claimed = await manager
        .withRepository(this.codes)
        .update(
          { id: recoveryCodeHash(typed), userId: user.id, usedAt: IsNull() },
          { usedAt: new Date() },
        );
      if (claimed.affected !== 1) return false;
      await this.events.signal(manager, {
        type: 'mfa.recovery_code_used',
        userId: user.id,
        user,
        origin: { client },
      });
      return true;
    });
  }

  /** An account's removal: its second factor and codes go with it. */
  async removeAll(manager: EntityManager, userId: string): Promise<void> {
    await manager.withRepository(this.codes).delete({ userId });
    await manager.withRepository(this.factors).delete({ userId });
  }

  /** `manager`: the unit of work's, or the repository's own for a plain call. */
  private enabledFactor(manager: EntityManager, userId: string): Promise<UserSecondFactor | null> {
    return manager
      .withRepository(this.factors)
      .createQueryBuilder('mfa')
      .where('mfa.userId = :userId AND mfa.totpSecret IS NOT NULL', { userId })
      .getOne();
  }

  private async upsert(manager: EntityManager, userId: string, fields: Partial<UserSecondFactor>) {
    const factors = manager.withRepository(this.factors);
    if (await factors.existsBy({ userId })) await factors.update({ userId }, fields);
    else {
      await factors.insert({
        userId,
        totpSecret: null,
        totpEnabledAt: null,
        totpLastStep: null,
        pendingSecret: null,
        pendingAt: null,
        updatedAt: new Date(),
        ...fields,
      });
    }
  }

  private async replaceRecoveryCodes(manager: EntityManager, userId: string): Promise<string[]> {
    const codes = Array.from({ length: RECOVERY_CODES }, newRecoveryCode);
    const now = new Date();
    await manager.withRepository(this.codes).delete({ userId });
    await manager
      .withRepository(this.codes)
      .insert(
        codes.map((code) => ({ id: recoveryCodeHash(code), userId, createdAt: now, usedAt: null })),
      );
    return codes;
  }
}

export function invalidCode(): AppException {
  return new AppException('INVALID_MFA_CODE');
}

function notEnabled(): AppException {
  return new AppException('VALIDATION_ERROR', { message: 'Two-step sign-in is not on' });
}
