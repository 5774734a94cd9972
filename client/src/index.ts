// The package's root entry: the session engine. Each way in and each area of the account is an
// entry of its own (`@auth-service/client/passkeys`…), which an app imports only if it uses it.
export { AuthClient, createAuthClient, type AuthClientOptions } from './auth-client.js';
export type { AuthClientPlugin, PluginApis, SessionEngine } from './plugin.js';
export { AuthError } from './auth-error.js';
export { isSecondFactorRequired } from './sign-in-result.js';
export { browserCoordination, type TabCoordination, type TabMessage } from './tab-coordination.js';
export type { RefreshOutcome, RefreshResult } from './session-refresher.js';
export type { Timers } from './renewal-timer.js';
export * from './types.js';
