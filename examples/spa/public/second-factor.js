// The account page's two-step sign-in: switch it on (a QR code, then a first code), the recovery
// codes shown once, new ones, switch it off; and the step-up the service asks for when the
// sign-in is not recent enough (403 REAUTHENTICATION_REQUIRED): the password or a code, then the
// same call again.
import { AuthError } from './sdk/index.js';
import { describe, fieldWords } from './messages.js';
import { clearForm, eitherField, fieldsOf, showFieldErrors, valuesOf, whileBusy } from './forms.js';
import { clearResults, say } from './results.js';

const $ = (selector) => document.querySelector(selector);

/** "JBSW Y3DP EHPK …": the key in groups of four, easier to type into an app. */
export const groupsOfFour = (secret) => secret.match(/.{1,4}/g).join(' ');

function statusText({ totp, recovery_codes_left: left }, passkeys) {
  if (!totp && passkeys > 0) {
    return passkeys === 1
      ? 'The authenticator app is off. Your passkey is your second step: after your password, signing in asks for it.'
      : 'The authenticator app is off. Your passkeys are your second step: after your password, signing in asks for one of them.';
  }
  if (!totp) return 'Off: signing in takes only your password.';
  const codes = `${left} recovery code${left === 1 ? '' : 's'} left`;
  return left <= 3
    ? `On. Only ${codes}: make new ones before you run out.`
    : `On: signing in asks for a code from your authenticator app. ${codes}.`;
}

/**
 * Wires the two-step section of the account page with the app's SDK client and forms;
 * `onChange` runs once it was switched on or off (a role that must have it can do more now).
 */
export function wireSecondFactor({ auth, onSubmit, onChange }) {
  const card = $('#two-step');
  let status = { totp: false, recovery_codes_left: 0 };
  /** How many passkeys the account has: each is a second factor too. */
  let passkeys = 0;
  let enrolling = false;
  let showingCodes = false;
  /** Resolves the open step-up question: true once the session is authenticated again. */
  let answerStepUp = null;

  const disableField = eitherField($('#totp-disable-switch'), [
    { input: $('#totp-disable-code'), offer: 'Use a code from your app instead' },
    { input: $('#totp-disable-password'), offer: 'Use your password instead' },
  ]);
  const reauthField = eitherField($('#reauth-switch'), [
    { input: $('#reauth-password'), offer: 'Use your password instead' },
    { input: $('#reauth-code'), offer: 'Use a code from your app instead' },
  ]);

  function render() {
    $('#two-step-status').textContent = statusText(status, passkeys);
    $('#totp-off').hidden = status.totp || enrolling;
    $('#totp-enrol').hidden = !enrolling;
    $('#recovery').hidden = !showingCodes;
    $('#totp-on').hidden = !status.totp;
  }

  async function load() {
    try {
      ({ data: status } = await auth.getSecondFactor());
      render();
    } catch (error) {
      $('#two-step-status').textContent =
        `Whether two-step sign-in is on could not be checked. ${describe(error)}`;
    }
  }

  /**
   * Runs `call`; when the service wants a recent sign-in, asks for the password (or a code) and
   * runs it once more. Undefined when the person cancels.
   */
  async function withStepUp(call) {
    try {
      return await call();
    } catch (error) {
      if (!(error instanceof AuthError && error.code === 'REAUTHENTICATION_REQUIRED')) throw error;
      if (!(await confirmIdentity())) return undefined;
      return call();
    }
  }

  /** The step-up question, in a modal dialog that keeps the focus until it is answered. */
  function confirmIdentity() {
    const dialog = $('#reauth-dialog');
    clearForm($('#reauth-form'));
    reauthField.reset();
    // A code is offered only to someone with an authenticator app.
    $('#reauth-switch').hidden = !status.totp;
    dialog.returnValue = '';
    dialog.showModal();
    reauthField.input.focus();
    return new Promise((resolve) => {
      answerStepUp = resolve;
    });
  }

  // Confirmed, cancelled, Escape, or the session ended meanwhile.
  $('#reauth-dialog').addEventListener('close', () => {
    answerStepUp?.($('#reauth-dialog').returnValue === 'confirmed');
    answerStepUp = null;
  });
  $('#reauth-cancel').addEventListener('click', () => $('#reauth-dialog').close('cancelled'));
  $('#reauth-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const form = event.currentTarget;
    void whileBusy(form.querySelector('[type=submit]'), 'Checking…', async () => {
      clearResults(form);
      try {
        await auth.reauthenticate(valuesOf(form));
        $('#reauth-dialog').close('confirmed');
      } catch (error) {
        // The page behind the dialog is inert: the error is said here, beside the field.
        const words = fieldWords(error, fieldsOf(form), 'reauth');
        if (words[reauthField.input.name]) {
          showFieldErrors(form, words);
          reauthField.input.select();
        } else say(form, describe(error, 'reauth'));
      }
    });
  });

  function showEnrolment({ secret, otpauth_url: uri, qr_svg: qr }) {
    $('#totp-qr').src = qr;
    $('#totp-secret').textContent = groupsOfFour(secret);
    $('#totp-link').href = uri;
    enrolling = true;
    render();
    $('#totp-enrol-title').focus();
  }

  /** The secret leaves the page once it is no longer needed. */
  function forgetEnrolment() {
    enrolling = false;
    $('#totp-qr').removeAttribute('src');
    $('#totp-secret').textContent = '';
    $('#totp-link').href = '#';
    clearForm($('#totp-confirm-form'));
  }

  function showCodes(codes, text) {
    $('#recovery-text').textContent = text;
    $('#recovery-list').replaceChildren(
      ...codes.map((code) => {
        const item = document.createElement('li');
        item.textContent = code;
        return item;
      }),
    );
    showingCodes = true;
    render();
    $('#recovery-title').focus();
  }

  function hideCodes() {
    showingCodes = false;
    $('#recovery-list').replaceChildren();
    clearResults($('#recovery'));
  }

  /** The codes shown, as a person keeps them: what they are for, then one a line. */
  function codesText() {
    const codes = [...$('#recovery-list').children].map((item) => item.textContent);
    const made = new Date().toLocaleDateString('en', { dateStyle: 'medium' });
    return [
      `Recovery codes for your account at ${location.host}, made ${made}.`,
      'Each one signs you in once if you cannot use your authenticator app.',
      'Making new codes stops these from working.',
      '',
      ...codes,
      '',
    ].join('\n');
  }

  $('#recovery-copy').addEventListener('click', () => {
    void whileBusy($('#recovery-copy'), 'Copying…', async () => {
      try {
        await navigator.clipboard.writeText(codesText());
        say(
          $('#recovery'),
          'The codes were copied: paste them somewhere safe, such as a password manager.',
          'success',
        );
      } catch {
        say($('#recovery'), 'The codes could not be copied here: download them instead.');
      }
    });
  });

  $('#recovery-download').addEventListener('click', () => {
    void whileBusy($('#recovery-download'), 'Downloading…', async () => {
      const file = `recovery-codes-${location.hostname}.txt`;
      const link = document.createElement('a');
      link.href = URL.createObjectURL(new Blob([codesText()], { type: 'text/plain' }));
      link.download = file;
      link.click();
      // Once the browser has taken the file: the codes do not stay behind in a URL.
      setTimeout(() => URL.revokeObjectURL(link.href), 1000);
      say(
        $('#recovery'),
        `The codes were downloaded as ${file}: keep the file somewhere safe.`,
        'success',
      );
    });
  });

  $('#totp-begin').addEventListener('click', () => {
    void whileBusy($('#totp-begin'), 'Starting…', async () => {
      clearResults(card);
      try {
        const result = await withStepUp(() => auth.beginTotpEnrolment());
        if (result) showEnrolment(result.data);
        else say(card, 'Two-step sign-in is still off.', 'info');
      } catch (error) {
        say(card, `Two-step sign-in could not be switched on. ${describe(error)}`);
      }
    });
  });

  $('#totp-cancel').addEventListener('click', () => {
    forgetEnrolment();
    render();
    $('#totp-begin').focus();
  });

  onSubmit('#totp-confirm-form', 'Checking…', async (values) => {
    const { data } = await auth.confirmTotpEnrolment(values.code);
    forgetEnrolment();
    status = { totp: true, recovery_codes_left: data.recovery_codes.length };
    showCodes(
      data.recovery_codes,
      'Two-step sign-in is on. From now on, signing in asks for your password and a code from ' +
        'your authenticator app. ' +
        'If you lose the app, one of these codes signs you in instead.',
    );
    void onChange();
  });

  $('#recovery-done').addEventListener('click', () => {
    hideCodes();
    render();
    $('#two-step-title').focus();
  });

  $('#recovery-regenerate').addEventListener('click', () => {
    void whileBusy($('#recovery-regenerate'), 'Making new codes…', async () => {
      clearResults(card);
      try {
        const result = await withStepUp(() => auth.regenerateRecoveryCodes());
        if (!result) {
          say(card, 'Nothing was changed: your recovery codes still work.', 'info');
          return;
        }
        status = { ...status, recovery_codes_left: result.data.recovery_codes.length };
        showCodes(
          result.data.recovery_codes,
          'You have new recovery codes: the old ones no longer work.',
        );
      } catch (error) {
        say(card, `No new recovery codes were made. ${describe(error)}`);
      }
    });
  });

  onSubmit('#totp-disable-form', 'Switching off…', async (values, form) => {
    const result = await withStepUp(() => auth.disableTotp(values));
    if (!result) {
      say(form, 'Two-step sign-in is still on.', 'info');
      return;
    }
    clearForm(form);
    disableField.reset();
    hideCodes();
    status = { totp: false, recovery_codes_left: 0 };
    render();
    // The form is gone: the result is said in the section it was in.
    say(card, 'Two-step sign-in is off. Signing in takes only your password now.', 'success');
    void onChange();
  });

  /** After a sign-out: no secret, no code and no open question stay on the page. */
  function reset() {
    if ($('#reauth-dialog').open) $('#reauth-dialog').close('cancelled');
    forgetEnrolment();
    hideCodes();
    clearForm($('#totp-disable-form'));
    disableField.reset();
    status = { totp: false, recovery_codes_left: 0 };
    render();
  }

  /** The passkeys section says how many there are: the status reads right with them. */
  function setPasskeys(count) {
    passkeys = count;
    // Before the status has loaded, there is nothing to say yet.
    if ($('#two-step-status').textContent) render();
  }

  return { load, reset, withStepUp, setPasskeys };
}
