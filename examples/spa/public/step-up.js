// The step-up the service asks for: when a sign-in is not recent enough (403
// REAUTHENTICATION_REQUIRED), or a role must show its second factor (403 SECOND_FACTOR_REQUIRED),
// a dialog asks for a proof the account has (its profile lists them) and the call runs again.
// With a password: the password, or a code from the app. Without one: a passkey, a code by
// email, a fresh sign-in at a linked provider (which leaves the page and comes back), or the
// app's code; and the way to set a password, by the reset mail.
import { AuthError } from './sdk/index.js';
import { describe, fieldWords } from './messages.js';
import { clearForm, eitherField, fieldsOf, showFieldErrors, valuesOf, whileBusy } from './forms.js';
import { clearResults, say } from './results.js';

const $ = (selector) => document.querySelector(selector);

/** The codes that a step-up answers; the second asks for a second factor only. */
const STEP_UP_CODES = ['REAUTHENTICATION_REQUIRED', 'SECOND_FACTOR_REQUIRED'];

/** Shows or hides a field of the dialog, and leaves a hidden one out of what is sent. */
function showField(input, shown) {
  input.closest('.field').hidden = !shown;
  input.disabled = !shown;
}

/** Where a step-up through a provider comes back to: this page, which says it is done. */
export const stepUpReturn = (providerId) =>
  `${location.origin}/?step_up=${encodeURIComponent(providerId)}`;

export function wireStepUp({ auth }) {
  const dialog = $('#reauth-dialog');
  const form = $('#reauth-form');
  /** Resolves the open question: true once the session is authenticated again. */
  let answer = null;
  /** The signed-in account, as the dialog opened: its address and its proofs. */
  let profile = null;
  const typed = eitherField($('#reauth-switch'), [
    { input: $('#reauth-password'), offer: 'Use your password instead' },
    { input: $('#reauth-code'), offer: 'Use a code from your app instead' },
  ]);

  /**
   * Runs `call`; when the service wants a recent sign-in (or the second factor), asks for a
   * proof and runs it once more. Undefined when the person cancels.
   */
  async function withStepUp(call) {
    try {
      return await call();
    } catch (error) {
      if (!(error instanceof AuthError && STEP_UP_CODES.includes(error.code))) throw error;
      if (!(await confirmIdentity(error.code === 'SECOND_FACTOR_REQUIRED'))) return undefined;
      return call();
    }
  }

  /** The step-up question, in a modal dialog that keeps the focus until it is answered. */
  async function confirmIdentity(secondFactorOnly) {
    profile = await auth.account.getProfile().then(
      ({ data }) => data.user,
      () => null,
    );
    const methods = profile?.reauthentication_methods ?? ['password'];
    const has = (method) => methods.includes(method);
    clearForm(form);
    typed.reset();
    const password = has('password') && !secondFactorOnly;
    const code = has('totp');
    // A password first where there is one; the app's code instead (or alone, where it is all).
    showField($('#reauth-password'), password);
    showField($('#reauth-code'), code && !password);
    $('#reauth-switch').hidden = !(password && code);
    showField($('#reauth-email-code'), false);
    $('#reauth-submit').hidden = !password && !code;
    $('#reauth-passkey').hidden = !has('passkey') || (password && !secondFactorOnly);
    $('#reauth-email').hidden = !has('email_code') || password || secondFactorOnly;
    $('#reauth-no-password').hidden = has('password') || secondFactorOnly;
    $('#reauth-text').textContent = secondFactorOnly
      ? 'Your account must use two-step sign-in: confirm it’s you with your authenticator app or your passkey.'
      : 'You signed in a while ago: confirm it’s you before this change.';
    await offerProviders(has('identity_provider') && !password && !secondFactorOnly);
    dialog.returnValue = '';
    dialog.showModal();
    const first = [
      password ? $('#reauth-password') : null,
      code && !password ? $('#reauth-code') : null,
      ...form.querySelectorAll('#reauth-other-ways button:not([hidden])'),
    ].find(Boolean);
    (first ?? $('#reauth-cancel')).focus();
    return new Promise((resolve) => {
      answer = resolve;
    });
  }

  /** A "Sign in again with <name>" button for each linked provider. */
  async function offerProviders(offered) {
    for (const old of form.querySelectorAll('[data-step-up-provider]')) old.remove();
    if (!offered) return;
    try {
      const [{ data: linked }, { data: listed }] = await Promise.all([
        auth.identityProviders.listLinked(),
        auth.identityProviders.list(),
      ]);
      for (const identity of linked.identities) {
        const name = listed.providers.find((p) => p.id === identity.provider)?.name;
        if (!name) continue;
        const button = document.createElement('button');
        button.type = 'button';
        button.className = 'secondary';
        button.dataset.stepUpProvider = identity.provider;
        button.textContent = `Sign in again with ${name}`;
        button.addEventListener('click', () => {
          location.assign(
            auth.identityProviders.reauthenticateUrl(
              identity.provider,
              stepUpReturn(identity.provider),
            ),
          );
        });
        $('#reauth-other-ways').append(button);
      }
    } catch {
      // Not listed now: the other ways stay.
    }
  }

  function confirmed() {
    dialog.close('confirmed');
  }

  /** Said inside the dialog: the page behind it is inert. */
  function failed(error) {
    const words = fieldWords(error, fieldsOf(form), 'reauth');
    const field = Object.keys(words)[0];
    if (field) {
      showFieldErrors(form, words);
      form.elements[field].select();
    } else say(form, describe(error, 'reauth'));
  }

  // Confirmed, cancelled, Escape, or the session ended meanwhile.
  dialog.addEventListener('close', () => {
    // A close event is queued: one of an earlier opening may come after the next one began.
    if (dialog.open) return;
    answer?.(dialog.returnValue === 'confirmed');
    answer = null;
  });
  $('#reauth-cancel').addEventListener('click', () => dialog.close('cancelled'));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void whileBusy($('#reauth-submit'), 'Checking…', async () => {
      clearResults(form);
      const values = valuesOf(form);
      const proof = values.email_code !== undefined ? { emailCode: values.email_code } : values;
      try {
        await auth.reauthenticate(proof);
        confirmed();
      } catch (error) {
        failed(error);
      }
    });
  });

  $('#reauth-passkey').addEventListener('click', () => {
    void whileBusy($('#reauth-passkey'), 'Waiting for your passkey…', async () => {
      clearResults(form);
      try {
        await auth.passkeys.reauthenticate();
        confirmed();
      } catch (error) {
        say(form, describe(error, 'passkey'));
      }
    });
  });

  $('#reauth-email').addEventListener('click', () => {
    void whileBusy($('#reauth-email'), 'Sending…', async () => {
      clearResults(form);
      try {
        const { data } = await auth.requestReauthenticationCode();
        const minutes = Math.floor(data.expires_in / 60);
        $('#reauth-email-hint').textContent =
          `We sent a code to ${profile?.email ?? 'your address'}. It works once, for ${minutes} minute${minutes === 1 ? '' : 's'}.`;
        // The typed proof is the mailed code now.
        showField($('#reauth-code'), false);
        showField($('#reauth-email-code'), true);
        $('#reauth-switch').hidden = true;
        $('#reauth-submit').hidden = false;
        $('#reauth-email').textContent = 'Email me a new code';
        $('#reauth-email-code').focus();
      } catch (error) {
        say(form, describe(error));
      }
    });
  });

  $('#reauth-set-password').addEventListener('click', () => {
    void whileBusy($('#reauth-set-password'), 'Sending…', async () => {
      clearResults(form);
      try {
        await auth.password.forgot({
          email: profile.email,
          applicationUrl: `${location.origin}/reset-password`,
        });
        say(
          form,
          `We sent a link to ${profile.email}: open it to set a password. Until then, confirm it’s you another way.`,
          'success',
        );
      } catch (error) {
        say(form, describe(error, 'forgot'));
      }
    });
  });

  /** After a sign-out: no open question stays. */
  function reset() {
    if (dialog.open) dialog.close('cancelled');
    $('#reauth-email').textContent = 'Email me a code';
  }

  return { withStepUp, reset };
}
