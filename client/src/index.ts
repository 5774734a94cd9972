// The package's public surface.
import { AuthClient, type AuthClientOptions } from './auth-client.js';

export { AuthClient, type AuthClientOptions } from './auth-client.js';
export { AdminClient, type AuthedCall } from './admin-client.js';
export { AuthError } from './auth-error.js';
export { isSecondFactorRequired } from './second-factor.js';
export { browserCoordination, type TabCoordination, type TabMessage } from './tab-coordination.js';
export type { RefreshOutcome, RefreshResult } from './session-refresher.js';
export type { Timers } from './renewal-timer.js';
export * from './types.js';

/** `createAuthClient({ baseUrl: 'https://auth.example.com/api/v1' })` */
export function createAuthClient(options: AuthClientOptions): AuthClient {
  return new AuthClient(options);
}
