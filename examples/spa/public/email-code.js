// Signing in with a code by email: the address, then the six digits the mail shows; or the
// mail's link, which opens /sign-in?token=… and signs in from there. Either may lead to the
// second step, as the password does.
import { describe } from './messages.js';
import { clearFieldErrors, clearForm, whileBusy } from './forms.js';
import { clearResults, say } from './results.js';

const $ = (selector) => document.querySelector(selector);

/**
 * Wires the two forms with the app's SDK client and forms; `signedIn(result)` takes what
 * a sign-in answered (a session, or the second step to take first).
 */
export function wireEmailCode({ auth, onSubmit, signedIn, link }) {
  /** The address the code went to, while its form is on screen; in memory only. */
  let email = null;

  /** `expiresIn`: the seconds the service said; rounded down, so the page never promises more. */
  function showCodeForm(address, expiresIn) {
    email = address;
    $('#code-request-form').hidden = true;
    $('#code-verify-form').hidden = false;
    const minutes = Math.floor(expiresIn / 60);
    const lifetime =
      Number.isFinite(minutes) && minutes > 0
        ? `, for ${minutes} minute${minutes === 1 ? '' : 's'}`
        : ', for a short while';
    $('#code-verify-hint').textContent =
      `We sent a code to ${address}. The code and the link in the email work once${lifetime}.`;
    $('#code-verify-code').focus();
  }

  function reset() {
    email = null;
    clearForm($('#code-request-form'));
    clearForm($('#code-verify-form'));
    $('#code-request-form').hidden = false;
    $('#code-verify-form').hidden = true;
  }

  onSubmit('#code-request-form', 'Sending…', async (values) => {
    const { data } = await auth.emailCode.request({
      email: values.email,
      applicationUrl: link('/sign-in'),
    });
    showCodeForm(values.email, data?.expires_in);
  });

  onSubmit('#code-verify-form', 'Signing in…', async (values) => {
    const result = await auth.emailCode.signIn({ email, code: values.code });
    reset();
    signedIn(result);
  });

  /** Another code to the same address; the service caps them, and its 429 says how long to wait. */
  $('#code-verify-resend').addEventListener('click', () => {
    const form = $('#code-verify-form');
    void whileBusy($('#code-verify-resend'), 'Sending…', async () => {
      clearFieldErrors(form);
      clearResults(form);
      try {
        const { data } = await auth.emailCode.request({ email, applicationUrl: link('/sign-in') });
        form.elements.code.value = '';
        showCodeForm(email, data?.expires_in);
        say(form, `We sent a new code to ${email}: the one before no longer works.`, 'success');
      } catch (error) {
        say(form, `No new code was sent. ${describe(error, 'email-code')}`);
      }
    });
  });

  $('#code-verify-cancel').addEventListener('click', () => {
    reset();
    $('#code-request-email').focus();
  });

  /** The mail's link opened the app: it signs in once, with nothing typed. */
  async function signInFromLink(token) {
    await whileBusy($('#code-request-form [type=submit]'), 'Signing in…', async () => {
      signedIn(await auth.emailCode.signIn({ token }));
    });
  }

  return { reset, signInFromLink };
}
