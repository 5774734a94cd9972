import { Injectable, Logger } from '@nestjs/common';
import { ApplicationUrlPolicy } from '../auth/application-url.policy';
import { AuthService, PendingSecondFactor, Session } from '../auth/auth.service';
import { DomainEvents } from '../events/domain-events.service';
import { AppException } from '../common/errors/app.exception';
import { ClientInfo } from '../common/http/request-context';
import { isAcceptedAddress } from '../common/validation/email-address';
import { requiredProviderFor } from '../config/sso-domains';
import {
  LinkedIdentitiesService,
  IdentityTaken,
} from '../linked-identities/linked-identities.service';
import { IDENTITY_PROVIDER } from '../linked-identities/identity-provider.way-in';
import { FederationOutcome, Metrics } from '../metrics/metrics.service';
import { User } from '../users/user.entity';
import { UsersService } from '../users/users.service';
import { RefreshClaims } from '../sessions/refresh-claims';
import { Flow, ProviderFlowStates } from './provider-flow-states.service';
import { ProviderProfile } from './provider-profile';
import { ProviderClients } from './provider-clients.service';
import { IdentityAccounts } from './identity-accounts.service';
import { ProviderStepUp, StepUpFlow } from './provider-step-up.service';

/**
 * The contract's two callback codes (decisions.md), and a step-up's own: `IDENTITY_NOT_FOUND`,
 * the identity that came back is not one linked to the account stepping up.
 */
export type RedirectError =
  | 'ACCOUNT_EXISTS'
  | 'PROVIDER_ERROR'
  | 'IDENTITY_NOT_FOUND'
  // A before_user_created hook's refusal of a first sign-in, or its failure (docs/hooks.md).
  | 'REGISTRATION_REJECTED'
  | 'HOOK_UNAVAILABLE';

/** Where the callback sends the browser, and with what. */
export type CallbackOutcome = { redirectTo: string } & (
  | { kind: 'session'; session: Session }
  | { kind: 'second_factor'; pending: PendingSecondFactor }
  | { kind: 'linked' }
  | { kind: 'reauthenticated'; session: Session }
  | { kind: 'error'; error: RedirectError; message?: string }
);

/** Who a round trip is for, beyond a sign-in: an account linking, or a session stepping up. */
export type SignedInFlow = { purpose: 'link'; user: User } | StepUpFlow;

/**
 * Signing in (and linking) through an identity provider: the round trip's two ends. Accounts are
 * never taken over: an identity already linked signs into its account; an unknown one whose
 * email belongs to an account is refused (ACCOUNT_EXISTS) whatever the provider says of the
 * address, since linking must be proven from the account itself (signed in, then
 * `/users/me/identities/:id/start`); an unknown one with a new address creates an account
 * without a password.
 */
@Injectable()
export class ProviderSignIn {
  private readonly logger = new Logger(ProviderSignIn.name);

  constructor(
    private readonly providers: ProviderClients,
    private readonly states: ProviderFlowStates,
    private readonly identities: LinkedIdentitiesService,
    private readonly users: UsersService,
    private readonly auth: AuthService,
    private readonly applicationUrls: ApplicationUrlPolicy,
    private readonly events: DomainEvents,
    private readonly metrics: Metrics,
    private readonly stepUps: ProviderStepUp,
    private readonly accounts: IdentityAccounts,
  ) {}

  /**
   * The provider's authorization URL for a new flow bound to `browser`: a sign-in, or for a
   * signed-in user a link or a step-up (which asks the provider for a new sign-in).
   */
  async start(
    providerId: string,
    redirectTo: string,
    browser: string,
    signedIn: SignedInFlow | null,
  ): Promise<string> {
    const { client } = this.providers.get(providerId);
    const target = this.applicationUrls.check(redirectTo, 'redirect_to')!;
    const flow = this.states.open({
      provider: providerId,
      purpose: signedIn?.purpose ?? 'sign_in',
      userId: signedIn?.user.id ?? null,
      tokenVersion: signedIn?.user.tokenVersion ?? null,
      sessionId: signedIn?.purpose === 'reauth' ? signedIn.session.id : null,
      redirectTo: target,
      browser,
    });
    try {
      return await client.authorizationUrl(flow, signedIn?.purpose === 'reauth');
    } catch (error) {
      this.logger.warn(`Provider ${providerId} unreachable: ${describe(error)}`);
      throw new AppException('PROVIDER_ERROR', {
        message: 'The identity provider cannot be reached, try again later',
      });
    }
  }

  /**
   * The provider's redirect. 400 PROVIDER_ERROR when the state opens no flow of this browser
   * and names no app to go back to; every other ending goes back to the app.
   */
  async finish(
    providerId: string,
    query: URLSearchParams,
    browser: string | undefined,
    client: ClientInfo,
    presented?: RefreshClaims,
  ): Promise<CallbackOutcome> {
    const state = query.get('state');
    const flow = state ? await this.states.take(state, browser) : null;
    if (!flow || flow.provider !== providerId) {
      this.metrics.federated('provider_error');
      const back = state ? await this.states.redirectOf(state) : undefined;
      if (back === undefined) throw new AppException('PROVIDER_ERROR');
      return { kind: 'error', redirectTo: back, error: 'PROVIDER_ERROR' };
    }
    const outcome = await this.conclude(state!, flow, query, client, presented);
    this.metrics.federated(metricOf(outcome));
    return outcome;
  }

  private async conclude(
    state: string,
    flow: Flow,
    query: URLSearchParams,
    client: ClientInfo,
    presented: RefreshClaims | undefined,
  ): Promise<CallbackOutcome> {
    const redirectTo = flow.redirectTo;
    const refused = async (error: RedirectError, detail: string): Promise<CallbackOutcome> => {
      this.logger.warn({ requestId: client.requestId, msg: `${flow.provider}: ${detail}` });
      await this.events.signalAlone({
        type: 'federation.failed',
        userId: flow.userId,
        origin: { client },
      });
      return { kind: 'error', redirectTo, error };
    };
    let profile: ProviderProfile;
    try {
      const { client: provider } = this.providers.get(flow.provider);
      profile = await provider.profile(query, {
        state,
        nonce: flow.nonce,
        codeVerifier: flow.codeVerifier,
      });
    } catch (error) {
      return refused('PROVIDER_ERROR', `answer refused: ${describe(error)}`);
    }
    // Recorded once the provider has vouched (its code exchanged): a refused or forged callback
    // writes nothing, and of two with this state only one gets past here.
    if (!(await this.states.finish(state, flow))) {
      return refused('PROVIDER_ERROR', 'its flow was finished by another callback');
    }
    // An address registration would refuse (`x@corp.example>,y`) is no address: stored, it
    // would reach mail headers and lookups that assume the registration rules.
    if (profile.email !== null && !isAcceptedAddress(profile.email)) {
      profile = { ...profile, email: null, emailVerified: false };
    }
    if (flow.purpose === 'link') return this.link(flow, profile, client, refused);
    if (flow.purpose === 'reauth') {
      const refusal = await this.stepUps.refusal(flow, profile);
      if (refusal) return refused(refusal.error, refusal.detail);
      const session = await this.stepUps.renew(flow, presented, client);
      if (!session) return refused('PROVIDER_ERROR', 'the session ended meanwhile');
      return { kind: 'reauthenticated', redirectTo, session };
    }
    const known = await this.identities.findBySubject(flow.provider, profile.subject);
    let user = known ? await this.users.findById(known.userId) : null;
    if (user && !this.ssoAllows(flow.provider, user.email)) {
      return refused('PROVIDER_ERROR', `${user.id} must sign in through its domain's provider`);
    }
    if (!user) {
      if (profile.email === null) return refused('PROVIDER_ERROR', 'no email address given');
      if (!this.ssoAllows(flow.provider, profile.email)) {
        return refused('PROVIDER_ERROR', "an SSO domain's address from another provider");
      }
      if (await this.users.findByEmail(profile.email)) {
        return refused('ACCOUNT_EXISTS', 'its email belongs to an account it is not linked to');
      }
      try {
        user = await this.accounts.create(flow.provider, profile, client);
      } catch (error) {
        const code = error instanceof AppException ? error.code : undefined;
        if (code !== 'REGISTRATION_REJECTED' && code !== 'HOOK_UNAVAILABLE') throw error;
        await refused(code, `before_user_created: ${code}`);
        const message = code === 'REGISTRATION_REJECTED' ? (error as Error).message : undefined;
        return { kind: 'error', redirectTo, error: code, message };
      }
      if (!user) return refused('ACCOUNT_EXISTS', 'its email was registered meanwhile');
    }
    // PROVIDER_ERROR: the contract's redirect has no other code, and a disabled account is told
    // as much by its password login (403 ACCOUNT_DISABLED) and the audit trail.
    if (user.disabledAt) return refused('PROVIDER_ERROR', `${user.id} is disabled`);
    try {
      const step = { method: IDENTITY_PROVIDER, provider: flow.provider };
      const signedIn = await this.auth.firstStepPassed(user, step, client);
      return 'mfa_required' in signedIn
        ? { kind: 'second_factor', redirectTo, pending: signedIn }
        : { kind: 'session', redirectTo, session: signedIn };
    } catch (error) {
      if (error instanceof AppException && error.code === 'LOGIN_FAILED') {
        return refused('PROVIDER_ERROR', `${user.id} changed meanwhile`);
      }
      if (error instanceof AppException && error.code === 'HOOK_UNAVAILABLE') {
        return refused('HOOK_UNAVAILABLE', 'custom_access_token hook failed');
      }
      throw error;
    }
  }

  /**
   * An address whose domain has `sso_required` signs in (and gets an account) only through that
   * domain's provider: any other would be a way around the organisation's own sign-in.
   */
  private ssoAllows(providerId: string, email: string): boolean {
    const required = requiredProviderFor(this.providers.list(), email);
    return required === undefined || required.id === providerId;
  }

  private async link(
    flow: Flow,
    profile: ProviderProfile,
    client: ClientInfo,
    refused: (error: RedirectError, detail: string) => Promise<CallbackOutcome>,
  ): Promise<CallbackOutcome> {
    const userId = flow.userId!;
    const known = await this.identities.findBySubject(flow.provider, profile.subject);
    if (known?.userId === userId) return { kind: 'linked', redirectTo: flow.redirectTo };
    if (known) return refused('ACCOUNT_EXISTS', 'identity linked to another account');
    try {
      await this.accounts.link(flow, profile, client);
    } catch (error) {
      if (error instanceof IdentityTaken) {
        return refused('ACCOUNT_EXISTS', 'identity (or one of this provider) already linked');
      }
      if (error instanceof AppException) {
        return refused('PROVIDER_ERROR', 'account gone, disabled or signed out since');
      }
      throw error;
    }
    return { kind: 'linked', redirectTo: flow.redirectTo };
  }
}

function metricOf(outcome: CallbackOutcome): FederationOutcome {
  if (outcome.kind === 'session') return 'signed_in';
  if (outcome.kind === 'reauthenticated') return 'reauthenticated';
  if (outcome.kind === 'second_factor') return 'mfa_required';
  if (outcome.kind === 'linked') return 'linked';
  return outcome.error === 'ACCOUNT_EXISTS' ? 'account_exists' : 'provider_error';
}

/** A failure's kind and message for the log: openid-client's say what was wrong, never a secret. */
function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : 'unknown failure';
}
