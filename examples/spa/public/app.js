// The example app: every call goes through the SDK, which keeps the tokens in HttpOnly cookies.
// Links in its emails come back to /verify-email?token=…, /reset-password?token=… or
// /sign-in?token=…, so the page knows which one it holds.
import { API_URL } from './config.js';
import { AuthError, createAuthClient, isSecondFactorRequired } from './sdk/index.js';
import { describe, isPassing } from './messages.js';
import {
  clearFieldErrors,
  clearForm,
  eitherField,
  showFieldErrors,
  valuesOf,
  whileBusy,
} from './forms.js';
import { wireAccount } from './account.js';
import { wireSecondFactor } from './second-factor.js';
import { wirePasskeys } from './passkeys.js';
import { wireEmailCode } from './email-code.js';
import { wireIdentityProviders } from './identity-providers.js';

const auth = createAuthClient({ baseUrl: API_URL });
// For trying the SDK in the browser's console.
window.auth = auth;

const $ = (selector) => document.querySelector(selector);
const VIEWS = ['#signed-out', '#second-step', '#signed-in', '#unavailable', '#reset'];
const FORMS = [
  '#login-form',
  '#code-request-form',
  '#code-verify-form',
  '#mfa-form',
  '#register-form',
  '#forgot-form',
  '#resend-form',
  '#reset-form',
  '#profile-form',
  '#password-form',
  '#email-form',
  '#delete-form',
  '#totp-confirm-form',
  '#totp-disable-form',
  '#reauth-form',
  '#passkey-add-form',
];
const link = (path) => `${location.origin}${path}`;
/** The reset token of the link that opened the page; kept in memory, never in the address bar. */
let resetToken = null;
/** The login's challenge while its second step is on screen; in memory only. */
let challenge = null;
const secondStepField = eitherField($('#mfa-switch'), [
  { input: $('#mfa-code'), offer: 'Use a code from the app instead' },
  { input: $('#mfa-recovery-code'), offer: 'Use a recovery code instead' },
]);

/**
 * Shows one view. After the first, the focus moves to its heading: the button that led here is
 * hidden now, and a keyboard or screen-reader user would otherwise be left nowhere.
 */
function show(view) {
  const changed = $(view).hidden;
  for (const candidate of VIEWS) $(candidate).hidden = candidate !== view;
  if (changed && document.body.dataset.ready === 'true') $(view).querySelector('h2')?.focus();
}

function setStatus(text) {
  $('#status').textContent = text;
}

/** The one message area: `error`, `success` or `info`; an empty text hides it. */
function notify(text, kind = 'error') {
  const notice = $('#notice');
  // An error interrupts a screen reader; news that all went well waits its turn.
  notice.setAttribute('role', kind === 'error' ? 'alert' : 'status');
  notice.textContent = text;
  notice.className = kind;
  notice.hidden = !text;
}

function clearAllForms() {
  for (const form of FORMS) clearForm($(form));
}

function showSignedIn(user) {
  leaveSecondStep();
  setStatus(`Signed in as ${user.username}`);
  $('#protected-result').textContent = '';
  const rows = [
    ['Email', user.email],
    ['Username', user.username],
    ...(user.name ? [['Name', user.name]] : []),
    ['Email verified', user.email_verified ? 'yes' : 'not yet'],
    ['Member since', new Date(user.created_at).toLocaleDateString('en')],
  ];
  $('#user').replaceChildren(
    ...rows.flatMap(([term, value]) => {
      const dt = document.createElement('dt');
      const dd = document.createElement('dd');
      dt.textContent = term;
      dd.textContent = value;
      return [dt, dd];
    }),
  );
  const profile = $('#profile-form');
  clearFieldErrors(profile);
  profile.elements.username.value = user.username;
  profile.elements.name.value = user.name ?? '';
  profile.elements.picture.value = user.picture ?? '';
  show('#signed-in');
  void account.loadSessions();
  void secondFactor.load();
  void passkeys.load();
  void identityProviders.load();
}

/**
 * The first step (the password, a code by email, a provider) was right; the account asks for a
 * second step. The focus goes to its passkey button when it has a passkey (the one that cannot be
 * phished), else to the code's field.
 */
function showSecondStep(value, methods, firstStep = 'Your password was right.') {
  challenge = value;
  clearForm($('#mfa-form'));
  const passkey = methods.includes('passkey');
  const codes = methods.includes('totp');
  $('#mfa-passkey').hidden = !passkey;
  $('#mfa-hint').textContent = codes
    ? `${firstStep} ${passkey ? 'Use your passkey, or enter' : 'Enter'} the 6-digit code your authenticator app shows for this account.`
    : `${firstStep} Confirm it’s you with your passkey.`;
  // An account with only a passkey has no code to type: the code's fields go.
  for (const element of $('#mfa-form').querySelectorAll(
    '.field, button:not([type]), #mfa-switch',
  )) {
    element.hidden = !codes;
  }
  if (codes) secondStepField.reset();
  setStatus('One more step to sign in');
  show('#second-step');
  (passkey ? $('#mfa-passkey') : $('#mfa-code')).focus();
}

function leaveSecondStep() {
  challenge = null;
  clearForm($('#mfa-form'));
  secondStepField.reset();
}

function showSignedOut(status = 'Signed out') {
  setStatus(status);
  $('#protected-result').textContent = '';
  show('#signed-out');
}

/** Not "signed out": the session may be alive, the service just cannot say so now. */
function showUnavailable(error) {
  setStatus('Cannot reach the service');
  $('#unavailable-text').textContent =
    `${describe(error)} Your session may still be active: nothing was signed out.`;
  show('#unavailable');
}

async function showCurrentState() {
  const status = await auth.status();
  if (status.state === 'signed-in') showSignedIn(status.user);
  else if (status.state === 'signed-out') showSignedOut();
  else showUnavailable(status.error);
}

/**
 * A failed form: field errors beside their fields, the rest in the notice. A wrong code is
 * selected, ready for the next one.
 */
function failed(form, error, context) {
  const unmatched = error instanceof AuthError ? showFieldErrors(form, error.details) : [];
  notify([describe(error, context), ...unmatched].join(' '));
  if (error instanceof AuthError && error.code === 'INVALID_MFA_CODE') {
    const code = form.querySelector('input:enabled');
    code?.focus();
    code?.select();
  }
}

/**
 * Wires a form: busy while its call runs, errors cleared before it, `run` does the rest.
 * `context` (for `describe`) may be a function of the form's values.
 */
function onSubmit(selector, busyLabel, run, context) {
  const form = $(selector);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void whileBusy(form.querySelector('button'), busyLabel, async () => {
      clearFieldErrors(form);
      notify('');
      const values = valuesOf(form);
      try {
        await run(values, form);
      } catch (error) {
        failed(form, error, typeof context === 'function' ? context(values) : context);
      }
    });
  });
}

onSubmit('#register-form', 'Creating the account…', async (values, form) => {
  const { message } = await auth.register({
    ...values,
    emailConfig: { applicationUrl: link('/verify-email') },
  });
  clearForm(form);
  notify(message, 'success');
});

onSubmit('#login-form', 'Logging in…', async (values, form) => {
  const result = await auth.login(values);
  clearForm(form);
  if (isSecondFactorRequired(result)) showSecondStep(result.data.challenge, result.data.methods);
  else showSignedIn(result.data.user);
});

$('#passkey-sign-in').addEventListener('click', () => {
  void whileBusy($('#passkey-sign-in'), 'Waiting for your passkey…', async () => {
    notify('');
    try {
      const { data } = await auth.signInWithPasskey();
      clearForm($('#login-form'));
      showSignedIn(data.user);
    } catch (error) {
      notify(describe(error));
    }
  });
});

$('#mfa-passkey').addEventListener('click', () => {
  void whileBusy($('#mfa-passkey'), 'Waiting for your passkey…', async () => {
    notify('');
    try {
      const { data } = await auth.verifySecondFactorWithPasskey(challenge);
      showSignedIn(data.user);
    } catch (error) {
      if (error instanceof AuthError && error.code === 'INVALID_TOKEN') {
        leaveSecondStep();
        showSignedOut();
      }
      notify(describe(error, 'second-step'));
    }
  });
});

onSubmit(
  '#mfa-form',
  'Checking…',
  async (values) => {
    try {
      const { data } = await auth.verifySecondFactor({ challenge, ...values });
      showSignedIn(data.user);
    } catch (error) {
      if (error instanceof AuthError && error.code === 'INVALID_TOKEN') {
        // Used or expired (five minutes): only the password step makes a new one.
        leaveSecondStep();
        showSignedOut();
      }
      throw error;
    }
  },
  (values) => ('recovery_code' in values ? 'recovery-code' : 'second-step'),
);

$('#mfa-cancel').addEventListener('click', () => {
  leaveSecondStep();
  notify('');
  showSignedOut();
});

onSubmit('#forgot-form', 'Sending…', async (values, form) => {
  const { message } = await auth.forgotPassword({
    ...values,
    applicationUrl: link('/reset-password'),
  });
  clearForm(form);
  notify(message, 'success');
});

onSubmit('#resend-form', 'Sending…', async (values, form) => {
  const { message } = await auth.resendVerificationEmail({
    ...values,
    applicationUrl: link('/verify-email'),
  });
  clearForm(form);
  notify(message, 'success');
});

onSubmit(
  '#reset-form',
  'Saving…',
  async (values, form) => {
    try {
      await auth.resetPassword({ token: resetToken, newPassword: values.newPassword });
    } catch (error) {
      // A used or expired link cannot be fixed here: the page goes back to what it was.
      if (error instanceof AuthError && error.code === 'INVALID_TOKEN') {
        resetToken = null;
        await showCurrentState();
      }
      throw error;
    }
    resetToken = null;
    clearForm(form);
    // The link may have been another account's: this browser's session may well live on.
    await showCurrentState();
    notify('Your password was changed. Log in with the new one.', 'success');
  },
  'reset',
);

$('#call-protected').addEventListener('click', () => {
  void whileBusy($('#call-protected'), 'Calling…', async () => {
    notify('');
    try {
      // Any route of your own API works the same way; verify-token stands in for one here.
      const response = await auth.fetch(`${API_URL}/auth/verify-token`);
      // 401: the session has ended, and onSessionEnded has already shown the login.
      if (response.status === 401) return;
      if (!response.ok) {
        notify(`The protected call failed: the API answered ${response.status}.`);
        return;
      }
      const body = await response.json();
      $('#protected-result').textContent = `${response.status} ${JSON.stringify(body, null, 2)}`;
    } catch (error) {
      $('#protected-result').textContent = '';
      notify(`The protected call failed. ${describe(error)}`);
    }
  });
});

$('#logout').addEventListener('click', () => {
  void whileBusy($('#logout'), 'Logging out…', async () => {
    try {
      await auth.logout();
    } catch (error) {
      // 401: there was no session left, and the SDK has already said so.
      if (!(error instanceof AuthError && error.status === 401)) {
        notify(`You are still signed in: the logout failed. ${describe(error)}`);
      }
    }
  });
});

$('#retry').addEventListener('click', () => {
  void whileBusy($('#retry'), 'Trying…', showCurrentState);
});

auth.onSessionEnded((reason) => {
  clearAllForms();
  emailCode.reset();
  secondFactor.reset();
  passkeys.reset();
  if (reason === 'logout') {
    showSignedOut();
    notify('');
  } else if (reason === 'account-deleted') {
    showSignedOut();
    notify('Your account was deleted.', 'info');
  } else if (!resetToken) {
    showSignedOut('Your session has ended, log in again');
  }
});

// A sign-in in another tab: this tab shows it too, whatever it showed before.
auth.onSessionStarted(({ source }) => {
  if (source === 'other-tab' && !resetToken) {
    notify('');
    void showCurrentState();
  }
});

const account = wireAccount({ auth, notify, showSignedIn, onSubmit });
const secondFactor = wireSecondFactor({
  auth,
  notify,
  onSubmit,
  onChange: () => account.loadSessions(),
});

const emailCode = wireEmailCode({
  auth,
  notify,
  onSubmit,
  link,
  // A sign-in by a code answers as a login does: a session, or the second step first.
  signedIn: (result) => {
    if (isSecondFactorRequired(result)) {
      showSecondStep(result.data.challenge, result.data.methods, 'Your code was right.');
    } else {
      showSignedIn(result.data.user);
    }
  },
});

const passkeys = wirePasskeys({
  auth,
  notify,
  onSubmit,
  withStepUp: secondFactor.withStepUp,
  onChange: () => account.loadSessions(),
  onCount: (count) => secondFactor.setPasskeys(count),
});

async function confirmEmailFromLink(token) {
  try {
    const { data } = await auth.confirmEmailChange({ token });
    notify(`Your email address is now ${data.user.email}.`, 'success');
  } catch (error) {
    notify(
      isPassing(error)
        ? `${describe(error)} Open the link from your email again in a moment.`
        : describe(error, 'confirm-email'),
    );
  }
}

async function verifyFromLink(token) {
  try {
    const { data } = await auth.verifyEmail({ token });
    notify(`Your email ${data.user.email} is verified. You can log in.`, 'success');
  } catch (error) {
    notify(
      isPassing(error)
        ? `${describe(error)} Open the link from your email again in a moment.`
        : describe(error, 'verify'),
    );
  }
}

const identityProviders = wireIdentityProviders({
  auth,
  notify,
  withStepUp: secondFactor.withStepUp,
});
await identityProviders.loadProviders();
const providerReturn = identityProviders.readReturn();

const route = location.pathname;
const token = new URLSearchParams(location.search).get('token');
// The token leaves the address bar at once: it must not stay in history or be shared.
if (token) history.replaceState(null, '', '/');
if (route === '/reset-password' && token) {
  resetToken = token;
  setStatus('Choose a new password');
  show('#reset');
} else if (route === '/sign-in' && token) {
  try {
    await emailCode.signInFromLink(token);
  } catch (error) {
    notify(describe(error, 'email-code-link'));
    await showCurrentState();
  }
} else {
  if (token && route === '/verify-email') await verifyFromLink(token);
  else if (token && route === '/confirm-email') await confirmEmailFromLink(token);
  else if (token) notify('This link is not one this app knows.');
  // Back from a provider, the account asks for its second step.
  if (providerReturn.kind === 'second_factor') {
    showSecondStep(
      providerReturn.challenge,
      providerReturn.methods,
      'You signed in with your provider.',
    );
  } else await showCurrentState();
}
document.body.dataset.ready = 'true';
