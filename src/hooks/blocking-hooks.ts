import { Injectable, Logger } from '@nestjs/common';
import { AppException } from '../common/errors/app.exception';
import { HooksConfig } from '../config/config.sections';
import { User } from '../users/user.entity';
import { verifiedUser } from '../users/user.view';
import {
  BeforeUserCreatedAnswer,
  BeforeUserCreatedData,
  CustomAccessTokenAnswer,
  CustomAccessTokenData,
  readClaims,
  readDecision,
} from './hook-answers';
import { HookCaller } from './hook-caller';

type Answerable<T> = T | Promise<T>;

/** The hooks a team's module provides in process (`BlockingHooks.register`), either or both. */
export interface InProcessHooks {
  beforeUserCreated?(data: BeforeUserCreatedData): Answerable<BeforeUserCreatedAnswer>;
  customAccessToken?(data: CustomAccessTokenData): Answerable<CustomAccessTokenAnswer>;
}

/** One hook to ask: a module's, or the configured URL. */
type Asker = (type: string, data: unknown) => Promise<unknown>;

const BEFORE_USER_CREATED = 'before_user_created';
const CUSTOM_ACCESS_TOKEN = 'custom_access_token';

/**
 * The blocking hooks: the registry modules add theirs to (in `onModuleInit`), and the calls the
 * core makes. Where both are set, each runs: the modules' in the order they registered, then the
 * URL. A hook that throws, answers out of shape or not within HOOK_TIMEOUT_MS has failed: the
 * request is refused (503 HOOK_UNAVAILABLE, HOOK_FAILURE=closed) or the hook skipped (`open`).
 */
@Injectable()
export class BlockingHooks {
  private readonly logger = new Logger(BlockingHooks.name);
  /** The modules' hooks first, in the order they registered; the configured URL last. */
  private readonly beforeUserCreatedAskers: Asker[] = [];
  private readonly customAccessTokenAskers: Asker[] = [];
  private readonly modules = { beforeUserCreated: 0, customAccessToken: 0 };
  /** Read on every token issued: with no such hook, that path stays as it was. */
  customizesAccessTokens = false;

  constructor(
    private readonly config: HooksConfig,
    caller: HookCaller,
  ) {
    const { beforeUserCreatedUrl: before, customAccessTokenUrl: token } = config;
    if (before) this.beforeUserCreatedAskers.push((type, data) => caller.call(before, type, data));
    if (token) this.customAccessTokenAskers.push((type, data) => caller.call(token, type, data));
    this.customizesAccessTokens = token !== undefined;
  }

  /** A module's own hooks (called in its `onModuleInit`), asked before the configured URLs. */
  register(hooks: InProcessHooks): void {
    if (hooks.beforeUserCreated) {
      const ask: Asker = (_type, data) =>
        this.inTime(() => hooks.beforeUserCreated!(data as BeforeUserCreatedData));
      this.beforeUserCreatedAskers.splice(this.modules.beforeUserCreated++, 0, ask);
    }
    if (hooks.customAccessToken) {
      const ask: Asker = (_type, data) =>
        this.inTime(() => hooks.customAccessToken!(data as CustomAccessTokenData));
      this.customAccessTokenAskers.splice(this.modules.customAccessToken++, 0, ask);
      this.customizesAccessTokens = true;
    }
  }

  /**
   * Asks before an account is made: 403 REGISTRATION_REJECTED with the hook's message when one
   * says no, 503 HOOK_UNAVAILABLE when one fails (closed); nothing has been stored yet.
   */
  async beforeUserCreated(user: BeforeUserCreatedData['user'], method: string): Promise<void> {
    const data: BeforeUserCreatedData = { user, method };
    for (const ask of this.beforeUserCreatedAskers) {
      let verdict: ReturnType<typeof readDecision>;
      try {
        verdict = readDecision(await ask(BEFORE_USER_CREATED, data));
      } catch (error) {
        this.failed(BEFORE_USER_CREATED, error);
        continue;
      }
      if (!verdict.allowed) {
        throw new AppException('REGISTRATION_REJECTED', { message: verdict.message });
      }
    }
  }

  /** The claims the hooks add to an access token about to be signed with `claims`. */
  async accessTokenClaims(
    user: User,
    claims: Readonly<Record<string, unknown>>,
  ): Promise<Record<string, unknown>> {
    const view = verifiedUser(user);
    let added: Record<string, unknown> = {};
    for (const ask of this.customAccessTokenAskers) {
      try {
        const data: CustomAccessTokenData = { user: view, claims: { ...claims, ...added } };
        added = { ...added, ...readClaims(await ask(CUSTOM_ACCESS_TOKEN, data)) };
      } catch (error) {
        this.failed(CUSTOM_ACCESS_TOKEN, error);
      }
    }
    return added;
  }

  /** Refuses the request (closed), or notes the hook was skipped (open). */
  private failed(type: string, error: unknown): void {
    const reason = error instanceof Error ? `${error.name}: ${error.message}` : 'unknown failure';
    const closed = this.config.failure === 'closed';
    this.logger.warn(
      `The ${type} hook failed (${reason}); ${closed ? 'request refused' : 'skipped'} (HOOK_FAILURE=${this.config.failure})`,
    );
    if (closed) throw new AppException('HOOK_UNAVAILABLE');
  }

  /** A module's hook under the URLs' deadline. */
  private inTime<T>(run: () => Answerable<T>): Promise<T> {
    const ms = this.config.timeoutMs;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    });
    return Promise.race([Promise.resolve().then(run), late]).finally(() => clearTimeout(timer));
  }
}
