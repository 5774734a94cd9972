import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AppException } from '../common/errors/app.exception';
import { ClientInfo } from '../common/http/request-context';
import { User } from '../users/user.entity';

/** Where an answer is checked: a login's second step, or a step-up of a signed-in session. */
export type StepPurpose = 'second_factor' | 'reauthentication';

/** A request body's fields, as the route's DTO validated them. */
export type Answer = Readonly<Record<string, unknown>>;

/** The answer fields a way in takes (a passkey's `passkey`), and its check. */
export interface AnswerCheck {
  fields: readonly string[];
  /** Where it is taken: a mailed step-up code is no login's second step. */
  purposes: readonly StepPurpose[];
  /** The step `answer` proved for `user`; a refusal is the way in's own error. */
  check(user: User, answer: Answer, purpose: StepPurpose, client: ClientInfo): Promise<ProvenStep>;
}

/**
 * A way into an account, as its module registers it (in its `onModuleInit`): the core reads
 * these and names no method itself.
 */
export interface WayIn {
  /** Its name in `GET /auth/sign-in-methods` (`password`, `passkey`), and the steps' `method`. */
  id: string;
  /** Its place in the list of sign-in methods and in the last-way-in locks: ascending. */
  order: number;
  /**
   * The RFC 8176 values a proof by it gives: the one, or for a way in with variants the one a
   * proof names (a passkey: `hwk` bound to its hardware, `swk` synced).
   */
  amr: readonly string[];
  /** Two factors by itself (a passkey verified by its person): with another step, `mfa`. */
  multiFactor?: boolean;
  /** Offered by this service (its configuration). */
  enabled(): boolean;
  /**
   * A way in of its own (listed by `GET /auth/sign-in-methods`); a second step only is not, and
   * a step-up by it is said on top of the session's first step.
   */
  listed: boolean;
  /**
   * How many of it the user holds, read inside the caller's transaction with its rows locked
   * until the end; absent when it is not the account's to lose (a code mailed to any address).
   */
  heldBy?: (manager: EntityManager, userId: string) => Promise<number>;
  /**
   * As a login's second step: the answers it takes from this user, as a sign-in page offers them
   * (`passkey`; `totp`, `recovery_code`), none when the user has not enrolled it.
   */
  secondStepsOf?: (userId: string) => Promise<string[]>;
  /** Its check, when it answers a second step or a step-up through the core's routes. */
  answers?: AnswerCheck;
  /** Whether the user can step a session up with it (their profile lists it). */
  stepUpFor?: (user: User) => Promise<boolean>;
}

/** What one step of a sign-in proved: the way in, and its variant's `amr` value when it has several. */
export interface ProvenStep {
  method: string;
  amr?: string;
  /** The configured identity provider it went through (AUTH_PROVIDERS' `id`), when one did. */
  provider?: string;
}

/** What an account holds of each way in, locked for the rest of the caller's transaction. */
export class HeldWaysIn {
  constructor(private readonly counts: ReadonlyMap<string, number>) {}

  /** 409 LAST_SIGN_IN_METHOD when removing `removing` of them would leave the account none. */
  refuseRemoving(removing = 1): void {
    let left = -removing;
    for (const count of this.counts.values()) left += count;
    if (left <= 0) throw new AppException('LAST_SIGN_IN_METHOD');
  }
}

@Injectable()
export class SignInMethodRegistry {
  private readonly ways = new Map<string, WayIn>();

  register(way: WayIn): void {
    if (this.ways.has(way.id)) throw new Error(`Sign-in method ${way.id} is registered twice`);
    this.ways.set(way.id, way);
  }

  /** What `GET /auth/sign-in-methods` lists: every way in switched on, in order. */
  listed(): string[] {
    return this.ordered()
      .filter((way) => way.listed && way.enabled())
      .map((way) => way.id);
  }

  /**
   * The locks are taken in the registry's order whoever asks, so two removals of an account's
   * last two ways in run one after the other and the second sees one left.
   */
  async lockHeld(manager: EntityManager, userId: string): Promise<HeldWaysIn> {
    const counts = new Map<string, number>();
    for (const way of this.ordered()) {
      if (way.heldBy) counts.set(way.id, await way.heldBy(manager, userId));
    }
    return new HeldWaysIn(counts);
  }

  /**
   * The second steps a user can take after a first, in order (the phishing-resistant passkey
   * first): none when they have no second factor. A user with one must take a second step, and
   * counts as enrolled for MFA_REQUIRED_ROLES.
   */
  async secondStepsOf(userId: string): Promise<string[]> {
    const ways = this.ordered().filter((way) => way.secondStepsOf);
    const offered = await Promise.all(ways.map((way) => way.secondStepsOf!(userId)));
    return offered.flat();
  }

  /**
   * Checks an answer (a second step's, a step-up's) by the way in whose field it carries, the
   * first in order (the route takes exactly one): the step it proved.
   */
  async check(
    user: User,
    answer: Answer,
    purpose: StepPurpose,
    client: ClientInfo,
  ): Promise<ProvenStep> {
    const way = this.ordered().find(
      (candidate) =>
        candidate.answers?.purposes.includes(purpose) &&
        candidate.answers.fields.some((field) => answer[field] !== undefined),
    );
    if (!way?.answers) throw new Error('No sign-in method takes this answer');
    return way.answers.check(user, answer, purpose, client);
  }

  /**
   * A step-up's `amr`: a way in of its own says its own, as its sign-in does; a second step only
   * (the app's code) is said on top of the session's first step (the first value of its `amr`),
   * as a login's second step says it: never `otp` alone, which is a mailed code's.
   */
  stepUpAmr(sessionAmr: readonly string[] | undefined, step: ProvenStep): readonly string[] {
    return this.get(step.method).listed
      ? this.amrOf(step)
      : this.combine(sessionAmr?.slice(0, 1), step);
  }

  /** The ways in the user can step a session up with, by id. */
  async stepUpsOf(user: User): Promise<Set<string>> {
    const ways = this.ordered().filter((way) => way.stepUpFor);
    const held = await Promise.all(ways.map((way) => way.stepUpFor!(user)));
    return new Set(ways.filter((_way, index) => held[index]).map((way) => way.id));
  }

  /** A step's `amr`: its variant's value, or the way in's own. */
  amrOf(step: ProvenStep): readonly string[] {
    const way = this.get(step.method);
    if (step.amr === undefined) {
      if (way.amr.length !== 1) throw new Error(`Sign-in method ${way.id} needs a variant`);
      return Object.freeze([...way.amr]);
    }
    if (!way.amr.includes(step.amr)) {
      throw new Error(`Sign-in method ${way.id} gives no amr ${step.amr}`);
    }
    return Object.freeze([step.amr]);
  }

  /**
   * A second step after a first one whose `amr` is `first` (unknown for a token from before
   * `amr`: the second step's alone). The values of both, then `mfa` when the list would not show
   * two factors by itself: a step that is two factors alone (a passkey), or two steps sharing a
   * value (a mailed code and the authenticator app's, both `otp`).
   */
  combine(first: readonly string[] | undefined, second: ProvenStep): readonly string[] {
    const added = this.amrOf(second);
    if (!first || first.length === 0) return added;
    const previous = first.filter((value) => value !== 'mfa');
    const values = [...new Set([...previous, ...added])];
    const multiFactor = new Set(
      [...this.ways.values()].filter((way) => way.multiFactor).flatMap((way) => way.amr),
    );
    const mfa =
      first.includes('mfa') ||
      values.length < previous.length + added.length ||
      values.some((value) => multiFactor.has(value));
    return Object.freeze(mfa ? [...values, 'mfa'] : values);
  }

  private get(id: string): WayIn {
    const way = this.ways.get(id);
    if (!way) throw new Error(`No sign-in method ${id} is registered`);
    return way;
  }

  private ordered(): WayIn[] {
    return [...this.ways.values()].sort((a, b) => a.order - b.order);
  }
}
