import { Injectable } from '@nestjs/common';
import { Reauthentication } from '../auth/reauthentication.service';
import { Session } from '../auth/auth.service';
import { AppException } from '../common/errors/app.exception';
import { ClientInfo } from '../common/http/request-context';
import { FederationConfig } from '../config/config.sections';
import { requiredProviderFor } from '../config/sso-domains';
import { LinkedIdentitiesService } from '../linked-identities/linked-identities.service';
import { IDENTITY_PROVIDER } from '../linked-identities/identity-provider.way-in';
import { RefreshClaims } from '../sessions/refresh-claims';
import { epochSeconds } from '../tokens/epoch-seconds';
import { User } from '../users/user.entity';
import { UsersService } from '../users/users.service';
import { Flow } from './provider-flow-states.service';
import { ProviderProfile } from './provider-profile';

/** A signed-in session stepping up through a provider: its user and its `sid`. */
export interface StepUpFlow {
  purpose: 'reauth';
  user: User;
  session: { id: string };
}

/**
 * How long before the flow began the provider's sign-in may have been: its clock and ours differ
 * a little, and the person may have signed in a moment before the redirect reached it.
 */
const CLOCK_SLACK_SECONDS = 30;

/** Why a step-up's round trip is refused: the code for the app's address, the detail for the log. */
export interface StepUpRefusal {
  error: 'IDENTITY_NOT_FOUND' | 'PROVIDER_ERROR';
  detail: string;
}

/**
 * A step-up through an identity provider (`GET /auth/reauthenticate/providers/:id/start`): the
 * round trip must come back with an identity linked to the very account that started it, from a
 * sign-in the provider made after the flow began (its ID token's `auth_time`, when it says one:
 * OpenID providers are asked for it with `prompt=login` and `max_age=0`), while that session and
 * the account's other ones were not ended (a reset, "sign out everywhere"), and, for an address
 * whose domain must sign in through its own provider (`sso_required`), through that provider.
 * Then the session's `auth_time` is renewed (`amr: ["fed"]`), and nothing else changes; refused,
 * nothing changes at all.
 */
@Injectable()
export class ProviderStepUp {
  constructor(
    private readonly identities: LinkedIdentitiesService,
    private readonly users: UsersService,
    private readonly reauthentication: Reauthentication,
    private readonly federation: FederationConfig,
  ) {}

  /** Why this answer cannot step the flow's session up; undefined when it can. */
  async refusal(flow: Flow, profile: ProviderProfile): Promise<StepUpRefusal | undefined> {
    const known = await this.identities.findBySubject(flow.provider, profile.subject);
    if (known?.userId !== flow.userId) {
      return { error: 'IDENTITY_NOT_FOUND', detail: 'step-up by an identity not linked to it' };
    }
    const begun = epochSeconds(flow.createdAt);
    if (profile.authTime !== null && profile.authTime < begun - CLOCK_SLACK_SECONDS) {
      return { error: 'PROVIDER_ERROR', detail: 'step-up without a new sign-in at the provider' };
    }
    const user = await this.users.findById(flow.userId);
    if (!user || user.disabledAt || user.tokenVersion !== flow.tokenVersion) {
      return { error: 'PROVIDER_ERROR', detail: 'step-up of an account gone or signed out since' };
    }
    const required = requiredProviderFor(this.federation.providers, user.email);
    if (required && required.id !== flow.provider) {
      return { error: 'PROVIDER_ERROR', detail: "step-up past its domain's own provider" };
    }
    return undefined;
  }

  /** The flow's session renewed (null when it has ended meanwhile). */
  async renew(
    flow: Flow,
    presented: RefreshClaims | undefined,
    client: ClientInfo,
  ): Promise<Session | null> {
    try {
      return await this.reauthentication.proven(
        flow.userId!,
        { id: flow.sessionId!, amr: undefined, presented },
        { method: IDENTITY_PROVIDER },
        client,
      );
    } catch (error) {
      if (error instanceof AppException && error.code === 'INVALID_TOKEN') return null;
      throw error;
    }
  }
}
