// How a part of the SDK (a way in, an area) plugs into the session engine: the engine names no
// part, so an app ships only the parts it passes to `createAuthClient({ plugins })`.
import type { LoginResult, MessageEnvelope, SessionEndReason, SignedInResult } from './types.js';

/**
 * The session engine's requests, as a part sends them. Every one rejects with `AuthError`; a
 * signed-in one is refreshed and retried once when the session's access token was refused.
 */
export interface SessionEngine {
  /** The service's base URL, without a trailing slash. */
  readonly baseUrl: string;
  /** A call that needs no session, read as the envelope. */
  call<R extends MessageEnvelope = MessageEnvelope>(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<R>;
  /** A signed-in call, read as the envelope. */
  authed<R extends MessageEnvelope = MessageEnvelope>(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<R>;
  /**
   * A sign-in: `POST path`, and unless it answered a second step to take first, the session it
   * answered starts here, in the other tabs and for the listeners.
   */
  signIn<R extends LoginResult>(path: string, body: unknown): Promise<R>;
  /** A step-up (`POST /auth/reauthenticate` with `body`): the same session, renewed cookies. */
  stepUp(body: Record<string, unknown>): Promise<SignedInResult>;
  /**
   * A signed-in call answered as a refresh is (new cookies for the same session, e.g. choosing
   * the active organization): renewed here and in the other tabs, as `refresh()` renews.
   */
  renewSession(method: string, path: string, body: unknown): Promise<SignedInResult>;
  /**
   * A signed-in call whose success ends every other session and gives this browser a new one
   * (a password change): the other tabs go on with it.
   */
  replaceSession(method: string, path: string, body: unknown): Promise<SignedInResult>;
  /**
   * For non-browser clients: `POST path` with the tokens asked for in the answer's body
   * (`X-Token-Delivery: body`); `looksRight` tells a success apart from what it should not be.
   */
  requestTokens<R>(path: string, body: unknown, looksRight: (body: unknown) => boolean): Promise<R>;
  /** The session ended by a call of the part (an account deleted): every tab hears it. */
  ended(reason: SessionEndReason): void;
}

/**
 * A part of the client: `id` names the property it is reached by (`auth.passkeys`), `create` makes
 * what that property holds, once per client.
 */
export interface AuthClientPlugin<Id extends string = string, Api = unknown> {
  readonly id: Id;
  create(engine: SessionEngine): Api;
}

/** `{ passkeys: PasskeysClient, … }` for the plugins given. */
export type PluginApis<P extends readonly AuthClientPlugin[]> = {
  readonly [Plugin in P[number] as Plugin['id']]: ReturnType<Plugin['create']>;
};
