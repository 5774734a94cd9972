// The account page's two-step sign-in: switch it on (a QR code, then a first code), the recovery
// codes shown once, new ones, switch it off. What needs a recent sign-in goes through the
// step-up (step-up.js), which asks for a proof the account has and runs the call again.
import { describe } from './messages.js';
import { clearForm, eitherField, whileBusy } from './forms.js';
import { clearResults, say } from './results.js';

const $ = (selector) => document.querySelector(selector);

/** "JBSW Y3DP EHPK …": the key in groups of four, easier to type into an app. */
export const groupsOfFour = (secret) => secret.match(/.{1,4}/g).join(' ');

function statusText({ totp, recovery_codes_left: left }, passkeys, hasPassword) {
  // An account without a password signs in with a provider, a passkey or a mailed code.
  if (!totp && !hasPassword) return 'Off: signing in asks for no code from an app.';
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
 * Wires the two-step section of the account page with the app's SDK client, forms and step-up;
 * `onChange` runs once it was switched on or off (a role that must have it can do more now).
 */
export function wireSecondFactor({ auth, onSubmit, onChange, withStepUp }) {
  const card = $('#two-step');
  let status = { totp: false, recovery_codes_left: 0 };
  /** How many passkeys the account has: each is a second factor too. */
  let passkeys = 0;
  /** Whether the account has a password: the words, and how it is switched off, depend on it. */
  let hasPassword = true;
  let enrolling = false;
  let showingCodes = false;

  const disableField = eitherField($('#totp-disable-switch'), [
    { input: $('#totp-disable-code'), offer: 'Use a code from your app instead' },
    { input: $('#totp-disable-password'), offer: 'Use your password instead' },
  ]);

  function render() {
    $('#two-step-status').textContent = statusText(status, passkeys, hasPassword);
    $('#totp-off-hint').textContent = hasPassword
      ? 'With it on, signing in takes your password and a code from an authenticator app on your phone, so a stolen password is not enough.'
      : 'With it on, signing in also asks for a code from an authenticator app on your phone.';
    // Without a password, the code is the one thing to type; a recent sign-in does without it.
    $('#totp-disable-switch').hidden = !hasPassword;
    $('#totp-disable-recent').hidden = hasPassword;
    $('#totp-off').hidden = status.totp || enrolling;
    $('#totp-enrol').hidden = !enrolling;
    $('#recovery').hidden = !showingCodes;
    $('#totp-on').hidden = !status.totp;
  }

  async function load() {
    try {
      ({ data: status } = await auth.secondFactor.get());
      render();
    } catch (error) {
      $('#two-step-status').textContent =
        `Whether two-step sign-in is on could not be checked. ${describe(error)}`;
    }
  }

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
        const result = await withStepUp(() => auth.secondFactor.beginTotpEnrolment());
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
    const { data } = await auth.secondFactor.confirmTotpEnrolment(values.code);
    forgetEnrolment();
    status = { totp: true, recovery_codes_left: data.recovery_codes.length };
    showCodes(
      data.recovery_codes,
      `Two-step sign-in is on. From now on, signing in asks for ${
        hasPassword ? 'your password and ' : ''
      }a code from your authenticator app. ` +
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
        const result = await withStepUp(() => auth.secondFactor.regenerateRecoveryCodes());
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

  /** Switched off with `proof` (none: the recent sign-in of an account without a password). */
  async function switchOff(form, proof) {
    const result = await withStepUp(() => auth.secondFactor.disableTotp(proof));
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
    // A passkey still asks for itself after the password: "only your password" would be false.
    const words = hasPassword && passkeys === 0 ? ' Signing in takes only your password now.' : '';
    say(card, `Two-step sign-in is off.${words}`, 'success');
    void onChange();
  }

  onSubmit('#totp-disable-form', 'Switching off…', (values, form) => switchOff(form, values));

  $('#totp-disable-recent').addEventListener('click', () => {
    const form = $('#totp-disable-form');
    void whileBusy($('#totp-disable-recent'), 'Switching off…', async () => {
      clearResults(form);
      try {
        await switchOff(form, undefined);
      } catch (error) {
        say(form, describe(error, 'totp-disable'));
      }
    });
  });

  /** After a sign-out: no secret and no code stay on the page. */
  function reset() {
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

  /** The profile says whether the account has a password. */
  function setHasPassword(value) {
    hasPassword = value;
    if ($('#two-step-status').textContent) render();
  }

  return { load, reset, setPasskeys, setHasPassword };
}
