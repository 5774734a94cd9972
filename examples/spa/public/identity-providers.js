// Identity providers: a "Sign in with <name>" button per provider the service lists, "Continue
// with your work email" (the address's organisation, if it has its own sign-in), what the round
// trip left in the address when the browser comes back, and, on the account page, the linked
// providers with link and unlink buttons.
import { AuthError } from './sdk/index.js';
import { describe, ssoRequiredWords } from './messages.js';
import { whileBusy } from './forms.js';
import { clearResults, resultArea, say } from './results.js';

const $ = (selector) => document.querySelector(selector);

/** The codes a refused round trip may leave in the address; any other reads as PROVIDER_ERROR. */
const RETURN_CODES = [
  'ACCOUNT_EXISTS',
  'PROVIDER_ERROR',
  'SSO_REQUIRED',
  'ACCOUNT_DISABLED',
  'IDENTITY_NOT_FOUND',
];

export function wireIdentityProviders({ auth, withStepUp, onSubmit }) {
  const card = $('#identities');
  /** The code the last round trip came back with, until it is said. */
  let returnError = null;
  /** The provider a link's round trip came back from (`?linked=<id>`), until it is said. */
  let linkedReturn = null;
  /** The provider a step-up went through (step-up.js sends it back with `?step_up=<id>`). */
  let steppedUpWith = null;
  /** Where every round trip comes back to: this page. */
  const back = `${location.origin}/`;
  let providers = [];

  function button(text, className, onClick) {
    const element = document.createElement('button');
    element.type = 'button';
    element.className = className;
    element.textContent = text;
    element.addEventListener('click', onClick);
    return element;
  }

  async function loadProviders() {
    try {
      providers = (await auth.identityProviders.list()).data.providers;
    } catch {
      providers = [];
    }
    $('#provider-sign-in').replaceChildren(
      ...providers.map((provider) =>
        button(`Sign in with ${provider.name}`, 'secondary', () =>
          location.assign(auth.identityProviders.signInUrl(provider.id, back)),
        ),
      ),
    );
    // An organisation's own sign-in is one of these providers: none listed, none to find.
    $('#work-email-link').hidden = providers.length === 0;
  }

  /** The address's organisation, when its domain has a provider: its name and where to go. */
  async function organisationOf(email) {
    try {
      const { data } = await auth.identityProviders.startSingleSignOn({ email, redirectTo: back });
      const provider = providers.find((p) => p.id === data.provider);
      return provider ? { name: provider.name, url: data.url } : null;
    } catch {
      return null;
    }
  }

  onSubmit('#work-email-form', 'Finding your organisation…', async (values) => {
    const { data } = await auth.identityProviders.startSingleSignOn({
      email: values.email,
      redirectTo: back,
    });
    location.assign(data.url);
  });

  /**
   * SSO_REQUIRED for a typed address, said in `region`: its organisation's provider named, and
   * its button right below the words. Without the provider, the words alone.
   */
  async function sayUseProvider(region, email, task) {
    const organisation = await organisationOf(email);
    if (!organisation) {
      say(region, describe(new AuthError('SSO_REQUIRED', '', 403), task));
      return;
    }
    say(region, ssoRequiredWords(organisation.name));
    const go = button(`Continue with ${organisation.name}`, 'secondary result-action', () =>
      location.assign(organisation.url),
    );
    resultArea(region).after(go);
  }

  /** Reads the address the provider's round trip came back to, then clears it. */
  function readReturn() {
    const result = auth.identityProviders.readReturn(location.href);
    const linked = new URLSearchParams(location.search).get('linked');
    steppedUpWith = new URLSearchParams(location.search).get('step_up');
    if (
      location.search.includes('error=') ||
      linked !== null ||
      location.hash.includes('mfa_required') ||
      steppedUpWith !== null
    ) {
      history.replaceState(null, '', location.pathname);
    }
    if (result.kind === 'error') {
      returnError = RETURN_CODES.includes(result.error) ? result.error : 'PROVIDER_ERROR';
    } else if (linked) {
      linkedReturn = linked;
    }
    return result;
  }

  /**
   * Back from linking, on the account page: said on the card, once its list shows the provider
   * (the address alone proves nothing: anyone can write `?linked=`).
   */
  function sayLinked() {
    const id = linkedReturn;
    linkedReturn = null;
    const listed = [...card.querySelectorAll('#identity-list li')].some(
      (item) => item.dataset.identity === id,
    );
    if (!id || !listed || $('#signed-in').hidden) return;
    const name = providers.find((p) => p.id === id)?.name ?? id;
    say(card, `${name} is linked: you can sign in with it from now on.`, 'success');
  }

  /**
   * Says why the round trip failed: on the account page for a link or a step-up, else beside
   * the sign-in.
   */
  function sayReturnError(signedIn) {
    if (!returnError) return;
    const error = new AuthError(returnError, '', 0);
    const task = steppedUpWith !== null ? 'step-up' : signedIn ? 'link' : 'sign-in';
    const region = steppedUpWith !== null ? $('#account-card') : signedIn ? card : $('#other-ways');
    say(region, describe(error, task));
    returnError = null;
    steppedUpWith = null;
  }

  /**
   * Back from a step-up through a provider: the session is recent again, and what asked for it
   * can be done now (the page was left, so it was not done yet).
   */
  function sayStepUpDone() {
    if (steppedUpWith === null) return;
    const name = providers.find((p) => p.id === steppedUpWith)?.name ?? 'your provider';
    say(
      $('#account-card'),
      `You confirmed it’s you with ${name}. Make your change again: it goes through now.`,
      'success',
    );
    steppedUpWith = null;
  }

  async function load() {
    const list = $('#identity-list');
    // No provider to sign in with: no card, and nothing to ask the service for.
    $('#identities').hidden = providers.length === 0;
    if (providers.length === 0) return;
    try {
      const linked = (await auth.identityProviders.listLinked()).data.identities;
      list.replaceChildren(
        ...linked.map((identity) => {
          const name = providers.find((p) => p.id === identity.provider)?.name ?? identity.provider;
          const item = document.createElement('li');
          item.dataset.identity = identity.provider;
          const text = document.createElement('span');
          text.textContent = `${name}${identity.email ? ` (${identity.email})` : ''}`;
          const remove = button('Unlink', 'danger', () => {
            void whileBusy(remove, 'Unlinking…', async () => {
              clearResults(card);
              try {
                const done = await withStepUp(() =>
                  auth.identityProviders.unlink(identity.provider),
                );
                if (!done) return;
                await load();
                say(card, `${name} no longer signs you in.`, 'success');
              } catch (error) {
                say(card, `${name} was not unlinked. ${describe(error)}`);
              }
            });
          });
          remove.setAttribute('aria-label', `Unlink ${name}`);
          item.append(text, remove);
          return item;
        }),
      );
      const unlinked = providers.filter((p) => !linked.some((i) => i.provider === p.id));
      $('#identity-link').replaceChildren(
        ...unlinked.map((provider) =>
          // Linking needs a recent sign-in (STEP_UP_MAX_AGE): sign in again first if it is old.
          // It comes back to `?linked=<id>`, so the page says what happened.
          button(`Link ${provider.name}`, 'secondary', () =>
            location.assign(
              auth.identityProviders.linkUrl(
                provider.id,
                `${back}?linked=${encodeURIComponent(provider.id)}`,
              ),
            ),
          ),
        ),
      );
    } catch (error) {
      list.replaceChildren();
      say(card, `Your linked providers could not be listed. ${describe(error)}`, 'error', {
        focus: false,
      });
    }
  }

  return {
    loadProviders,
    readReturn,
    sayReturnError,
    sayLinked,
    sayStepUpDone,
    sayUseProvider,
    load,
  };
}
