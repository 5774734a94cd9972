import { CallbackOutcome } from './provider-sign-in.service';

/**
 * The app address a callback ends at: `redirect_to` as it is after a sign-in or a link;
 * `?error=CODE` added after a refusal; after a sign-in whose second step is pending, the
 * challenge in the fragment (`#mfa_required=true&challenge=…&methods=…`), which browsers never
 * send to a server nor put in a Referer, for `POST /auth/mfa/verify`.
 */
export function callbackRedirect(outcome: CallbackOutcome): string {
  const url = new URL(outcome.redirectTo);
  if (outcome.kind === 'error') url.searchParams.set('error', outcome.error);
  if (outcome.kind === 'second_factor') {
    url.hash = new URLSearchParams({
      mfa_required: 'true',
      challenge: outcome.pending.challenge,
      methods: outcome.pending.methods.join(','),
    }).toString();
  }
  return url.toString();
}
