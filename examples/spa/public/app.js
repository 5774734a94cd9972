// The example app: every call goes through the SDK, which keeps the tokens in HttpOnly cookies.
// Links in its emails come back to /verify-email?token=…, /reset-password?token=…,
// /sign-in?token=… or /accept-invitation?invitation=…, so the page knows which one it holds.
import { API_URL } from './config.js';
import { AuthError, createAuthClient, isSecondFactorRequired } from './sdk/index.js';
import { password } from './sdk/password.js';
import { emailCode } from './sdk/email-code.js';
import { secondFactor } from './sdk/second-factor.js';
import { passkeys } from './sdk/passkeys.js';
import { identityProviders } from './sdk/identity-providers.js';
import { account } from './sdk/account.js';
import { organizations } from './sdk/organizations.js';
import { admin } from './sdk/admin.js';
import { PASSWORD_RULES, describe, fieldWords, isPassing } from './messages.js';
import {
  addPasswordRules,
  addPasswordToggles,
  clearFieldErrors,
  clearForm,
  eitherField,
  fieldsOf,
  showFieldErrors,
  valuesOf,
  whileBusy,
} from './forms.js';
import { clearResults, resultArea, say } from './results.js';
import { wireAccount } from './account.js';
import { wireSecondFactor } from './second-factor.js';
import { wirePasskeys } from './passkeys.js';
import { wireEmailCode } from './email-code.js';
import { wireIdentityProviders } from './identity-providers.js';
import { wireStepUp } from './step-up.js';
import { wireOrganizations } from './organizations.js';
import { wireWebhooks } from './webhooks.js';

// Every way in and every area of the account: an app that offers fewer passes fewer, and ships less.
const auth = createAuthClient({
  baseUrl: API_URL,
  plugins: [
    password(),
    emailCode(),
    secondFactor(),
    passkeys(),
    identityProviders(),
    account(),
    organizations(),
    admin(),
  ],
});
// For trying the SDK in the browser's console.
window.auth = auth;

const $ = (selector) => document.querySelector(selector);
const VIEWS = [
  '#signed-out',
  '#second-step',
  '#signed-in',
  '#invitation',
  '#unavailable',
  '#reset',
];
/** The signed-out tasks, one on screen at a time, each at its own address (`/#create-account`). */
const TASKS = [
  'log-in',
  'email-code',
  'work-email',
  'create-account',
  'forgot-password',
  'resend-verification',
];
const FORMS = [...document.querySelectorAll('form[data-task]')];
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
  // What the last view said is no news in the next one.
  if (changed) clearResults(document);
  for (const candidate of VIEWS) $(candidate).hidden = candidate !== view;
  if (changed && document.body.dataset.ready === 'true') $(view).querySelector('h2')?.focus();
}

function setStatus(text) {
  $('#status').textContent = text;
}

/**
 * Shows one signed-out task and puts it in the address, so the back button and a shared link
 * work. The focus goes to its heading, unless `focus` is false (a message takes it instead).
 */
function showTask(task, { focus = true, record = true } = {}) {
  const name = TASKS.includes(task) ? task : 'log-in';
  if ($(`#task-${name}`).hidden) clearResults($('#signed-out'));
  for (const candidate of TASKS) $(`#task-${candidate}`).hidden = candidate !== name;
  if (record && location.hash.slice(1) !== name) {
    history.replaceState(null, '', name === 'log-in' ? location.pathname : `#${name}`);
  }
  if (focus && document.body.dataset.ready === 'true') $(`#task-${name} h2`).focus();
  return $(`#task-${name} form:not([hidden])`);
}

/** A link between tasks: the address changes, and the task it names comes on screen. */
window.addEventListener('hashchange', () => {
  if (!$('#signed-out').hidden) showTask(location.hash.slice(1), { record: false });
});

/** Where a result about the whole page goes: the account card signed in, else the login form. */
const pageRegion = () => ($('#signed-out').hidden ? $('#account-card') : $('#login-form'));

function clearAllForms() {
  for (const form of FORMS) clearForm(form);
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
  $('#unverified').hidden = user.email_verified;
  const profile = $('#profile-form');
  clearFieldErrors(profile);
  profile.elements.username.value = user.username;
  profile.elements.name.value = user.name ?? '';
  profile.elements.picture.value = user.picture ?? '';
  webhooksView.load(user);
  // An invitation's link opened before the sign-in: its page first, the account behind it.
  if (!organizationsView.offerInvitation()) show('#signed-in');
  $('#signed-in').setAttribute('aria-busy', 'true');
  // Settled once every card has loaded: a result said after that stays where it was put.
  return Promise.allSettled([
    loadProfile(),
    accountView.loadSessions(),
    secondFactorView.load(),
    passkeysView.load(),
    identityProvidersView.load(),
    organizationsView.load(user),
  ]).then(() => $('#signed-in').removeAttribute('aria-busy'));
}

/**
 * Whether the account has a password, from its profile: the forms and cards that speak of one
 * (or ask for it) follow. Unknown (the profile could not be read): as if it had one.
 */
async function loadProfile() {
  let profile;
  try {
    profile = (await auth.account.getProfile()).data.user;
  } catch {
    return;
  }
  accountView.setProfile(profile);
  secondFactorView.setHasPassword(profile.has_password);
  passkeysView.setHasPassword(profile.has_password);
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
  for (const element of $('#mfa-form').querySelectorAll('.field, [type=submit], #mfa-switch')) {
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

function showSignedOut(status = 'Signed out', task = location.hash.slice(1)) {
  setStatus(status);
  $('#protected-result').textContent = '';
  show('#signed-out');
  return showTask(task);
}

/** Not "signed out": the session may be alive, the service just cannot say so now. */
function showUnavailable(error) {
  setStatus('Cannot reach the service');
  $('#unavailable-text').textContent =
    `${describe(error)} Your session may still be active: nothing was signed out.`;
  show('#unavailable');
}

async function showCurrentState(task) {
  const status = await auth.status();
  if (status.state === 'signed-in') await showSignedIn(status.user);
  else if (status.state === 'signed-out') showSignedOut('Signed out', task);
  else showUnavailable(status.error);
}

/**
 * A failed form: the words for each field it is about beside that field (the focus on the first),
 * the rest in the form's result. A wrong code is selected, ready for the next one. An address
 * whose organisation signs in with its own provider is told which, with its button.
 */
async function failed(form, error) {
  const task = form.dataset.task;
  const email = form.elements.email?.value.trim();
  if (error instanceof AuthError && error.code === 'SSO_REQUIRED' && email) {
    await identityProvidersView.sayUseProvider(form, email, task);
    return;
  }
  const words = fieldWords(error, fieldsOf(form), task);
  const about = Object.keys(words);
  const unplaced = (error instanceof AuthError ? error.details : []).some(
    ({ field }) => !about.includes(field),
  );
  if (about.length > 0) showFieldErrors(form, words);
  if (about.length === 0 || unplaced) say(form, describe(error, task));
  if (about.length > 0 && error instanceof AuthError && error.code === 'INVALID_MFA_CODE') {
    form.elements[about[0]].select();
  }
}

/** Wires a form: busy while its call runs, its messages cleared before, `run` does the rest. */
function onSubmit(selector, busyLabel, run) {
  const form = $(selector);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void whileBusy(form.querySelector('[type=submit]'), busyLabel, async () => {
      clearFieldErrors(form);
      clearResults(form);
      try {
        await run(valuesOf(form), form);
      } catch (error) {
        await failed(form, error);
      }
    });
  });
}

/** The address `email` as the service saw it: the words say it back, so a typo shows. */
onSubmit('#register-form', 'Creating the account…', async (values, form) => {
  await auth.password.register({
    ...values,
    emailConfig: { applicationUrl: link('/verify-email') },
  });
  clearForm(form);
  $('#resend-email').value = values.email;
  $('#register-resend').hidden = false;
  say(
    form,
    `Check your email: we sent a link to ${values.email}. Open it to verify your address, then log in.`,
    'success',
  );
});

onSubmit('#login-form', 'Logging in…', async (values, form) => {
  const result = await auth.password.signIn(values);
  clearForm(form);
  if (isSecondFactorRequired(result)) showSecondStep(result.data.challenge, result.data.methods);
  else showSignedIn(result.data.user);
});

$('#passkey-sign-in').addEventListener('click', () => {
  const card = $('#other-ways');
  void whileBusy($('#passkey-sign-in'), 'Waiting for your passkey…', async () => {
    clearResults(card);
    try {
      const { data } = await auth.passkeys.signIn();
      clearForm($('#login-form'));
      showSignedIn(data.user);
    } catch (error) {
      say(card, describe(error));
    }
  });
});

/** The second step's challenge has expired: back to the start, saying why. */
function secondStepExpired(error) {
  leaveSecondStep();
  say(showSignedOut('Signed out', 'log-in'), describe(error, 'second-step'));
}

$('#mfa-passkey').addEventListener('click', () => {
  const form = $('#mfa-form');
  void whileBusy($('#mfa-passkey'), 'Waiting for your passkey…', async () => {
    clearResults(form);
    try {
      const { data } = await auth.passkeys.verifySecondFactor(challenge);
      showSignedIn(data.user);
    } catch (error) {
      if (error instanceof AuthError && error.code === 'INVALID_TOKEN') secondStepExpired(error);
      else say(form, describe(error, 'second-step'));
    }
  });
});

onSubmit('#mfa-form', 'Checking…', async (values) => {
  try {
    const { data } = await auth.secondFactor.verify({ challenge, ...values });
    showSignedIn(data.user);
  } catch (error) {
    // Used or expired (five minutes): only the first step makes a new one.
    if (error instanceof AuthError && error.code === 'INVALID_TOKEN') secondStepExpired(error);
    else throw error;
  }
});

$('#mfa-cancel').addEventListener('click', () => {
  leaveSecondStep();
  showSignedOut();
});

onSubmit('#forgot-form', 'Sending…', async (values, form) => {
  await auth.password.forgot({ ...values, applicationUrl: link('/reset-password') });
  clearForm(form);
  say(
    form,
    `We sent a reset link to ${values.email}. Open it to choose a new password.`,
    'success',
  );
});

async function resend(email, region) {
  await auth.account.resendVerificationEmail({ email, applicationUrl: link('/verify-email') });
  say(region, `We sent a new verification link to ${email}.`, 'success');
}

onSubmit('#resend-form', 'Sending…', async (values, form) => {
  await resend(values.email, form);
  form.elements.email.value = '';
});

// A signed-in user whose address is not verified yet asks for the mail from the account card.
$('#verify-resend').addEventListener('click', () => {
  const card = $('#account-card');
  void whileBusy($('#verify-resend'), 'Sending…', async () => {
    clearResults(card);
    try {
      const { data } = await auth.account.getProfile();
      if (data.user.email_verified) {
        showSignedIn(data.user);
        say(card, 'Your email address is verified already.', 'info');
      } else await resend(data.user.email, card);
    } catch (error) {
      say(card, describe(error, 'resend'));
    }
  });
});

onSubmit('#reset-form', 'Saving…', async (values, form) => {
  try {
    await auth.password.reset({ token: resetToken, newPassword: values.newPassword });
  } catch (error) {
    // A used or expired link cannot be fixed here: the page offers a new one.
    if (error instanceof AuthError && error.code === 'INVALID_TOKEN') {
      resetToken = null;
      clearForm(form);
      say(showSignedOut('Signed out', 'forgot-password'), describe(error, 'reset'));
      return;
    }
    throw error;
  }
  resetToken = null;
  clearForm(form);
  // The link may have been another account's: this browser's session may well live on.
  await showCurrentState('log-in');
  say(pageRegion(), 'Your password was changed. Log in with the new one.', 'success');
});

$('#call-protected').addEventListener('click', () => {
  const card = $('#account-card');
  void whileBusy($('#call-protected'), 'Calling…', async () => {
    clearResults(card);
    $('#protected-result').textContent = '';
    try {
      // Any route of your own API works the same way; verify-token stands in for one here.
      const response = await auth.fetch(`${API_URL}/auth/verify-token`);
      // 401: the session has ended, and onSessionEnded has already shown the login.
      if (response.status === 401) return;
      if (!response.ok) {
        say(card, `The protected call failed: the API answered ${response.status}.`);
        return;
      }
      const body = await response.json();
      $('#protected-result').textContent = `${response.status} ${JSON.stringify(body, null, 2)}`;
    } catch (error) {
      say(card, `The protected call failed. ${describe(error)}`);
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
        say($('#account-card'), `You are still signed in: the logout failed. ${describe(error)}`);
      }
    }
  });
});

$('#retry').addEventListener('click', () => {
  void whileBusy($('#retry'), 'Trying…', showCurrentState);
});

auth.onSessionEnded((reason) => {
  clearAllForms();
  stepUp.reset();
  emailCodeView.reset();
  secondFactorView.reset();
  passkeysView.reset();
  accountView.reset();
  organizationsView.reset();
  if (reason === 'logout') {
    showSignedOut('Signed out', 'log-in');
  } else if (reason === 'account-deleted') {
    say(showSignedOut('Signed out', 'log-in'), 'Your account was deleted.', 'info');
  } else if (!resetToken) {
    showSignedOut('Your session has ended, log in again', 'log-in');
  }
});

// A sign-in in another tab: this tab shows it too, whatever it showed before.
auth.onSessionStarted(({ source }) => {
  if (source === 'other-tab' && !resetToken) void showCurrentState();
});

const stepUp = wireStepUp({ auth });
const { withStepUp } = stepUp;
const accountView = wireAccount({ auth, showSignedIn, onSubmit, withStepUp });
const secondFactorView = wireSecondFactor({
  auth,
  onSubmit,
  withStepUp,
  onChange: () => accountView.loadSessions(),
});

const emailCodeView = wireEmailCode({
  auth,
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

const passkeysView = wirePasskeys({
  auth,
  onSubmit,
  withStepUp,
  onChange: () => accountView.loadSessions(),
  onCount: (count) => secondFactorView.setPasskeys(count),
});

/** The link of an email-change mail: the account card says what became of it. */
async function confirmEmailFromLink(token) {
  let said;
  try {
    const { data } = await auth.account.confirmEmailChange({ token });
    // The old address was mailed a link that undoes the change: its owner should know to look.
    said = [
      `Your email address is now ${data.user.email}. Your old address was told, with a link that undoes the change.`,
      'success',
    ];
  } catch (error) {
    said = [
      isPassing(error)
        ? `${describe(error)} Open the link from your email again in a moment.`
        : describe(error, 'confirm-email'),
      'error',
    ];
  }
  await showCurrentState('log-in');
  say(pageRegion(), ...said);
}

/**
 * The link of a verification mail. Signed in, the account card says what became of it; signed
 * out, the login (or, for a dead link, a new link's form) does.
 */
async function verifyFromLink(token) {
  try {
    const { data } = await auth.account.verifyEmail({ token });
    await showCurrentState('log-in');
    const signedIn = $('#signed-out').hidden;
    const text = `Your email ${data.user.email} is verified.${signedIn ? '' : ' You can log in.'}`;
    say(pageRegion(), text, 'success');
  } catch (error) {
    const dead = !isPassing(error);
    // Verified already (by this link or another): logging in is what is left to do.
    const verified = error instanceof AuthError && error.linkRefusal === 'verified';
    const renew = dead && !verified;
    await showCurrentState(renew ? 'resend-verification' : 'log-in');
    if (!$('#signed-out').hidden) {
      const words = describe(error, 'verify');
      say(renew ? $('#resend-form') : $('#login-form'), words, verified ? 'info' : 'error');
    } else if (dead && $('#unverified').hidden) {
      // Signed in and verified: the link was used, and did its job.
      say($('#account-card'), 'Your email address is verified already.', 'info');
    } else {
      say($('#account-card'), describe(error, 'verify'));
    }
  }
}

/**
 * Only the ways in the service offers (a switched-off one would answer 404) and this browser can
 * use. Unknown (the service unreachable at load): every one, as before the answer.
 */
async function offerSignInMethods() {
  const methods = await auth.listSignInMethods().then(
    ({ data }) => data.methods,
    () => ['password', 'passkey', 'email_code'],
  );
  if (!methods.includes('passkey') || !(await auth.passkeys.support()).passkeys) {
    $('#passkey-sign-in').hidden = true;
  }
  if (!methods.includes('email_code')) {
    for (const link of document.querySelectorAll('a[href="#email-code"]')) link.hidden = true;
    TASKS.splice(TASKS.indexOf('email-code'), 1);
  }
}

const identityProvidersView = wireIdentityProviders({ auth, withStepUp, onSubmit });
const organizationsView = wireOrganizations({ auth, onSubmit, link, show });
const webhooksView = wireWebhooks({ auth, withStepUp });

for (const form of FORMS) resultArea(form);
for (const card of document.querySelectorAll('.card, #unavailable')) resultArea(card);
addPasswordToggles(document);
addPasswordRules(document, PASSWORD_RULES);
await offerSignInMethods();
await identityProvidersView.loadProviders();
// A heading over no button says nothing: with no other way in, the card goes.
$('#other-ways').hidden = ![...$('#other-ways').querySelectorAll('button, a')].some(
  (way) => !way.hidden,
);
const providerReturn = identityProvidersView.readReturn();

const route = location.pathname;
const token = new URLSearchParams(location.search).get('token');
const invitation = new URLSearchParams(location.search).get('invitation');
// The token leaves the address bar at once: it must not stay in history or be shared.
if (token || invitation) history.replaceState(null, '', '/');
if (route === '/accept-invitation' && invitation) {
  // Signed in, its page shows; signed out, the login says why, and the page follows the sign-in.
  organizationsView.holdInvitation(invitation);
  await showCurrentState('log-in');
  if (!$('#signed-out').hidden) {
    say(
      $('#login-form'),
      'Log in to accept your invitation. No account yet? Create one with the invited email address, verify it, then open the link again.',
      'info',
    );
  }
} else if (route === '/reset-password' && token) {
  resetToken = token;
  setStatus('Choose a new password');
  show('#reset');
  // The one thing to do here is to type: the field has the focus, its hint says what it is for.
  $('#reset-newPassword').focus();
} else if (route === '/sign-in' && token) {
  try {
    await emailCodeView.signInFromLink(token);
  } catch (error) {
    const dead = !isPassing(error);
    await showCurrentState(dead ? 'email-code' : 'log-in');
    const region = $('#signed-out').hidden
      ? $('#account-card')
      : showTask(dead ? 'email-code' : 'log-in');
    say(region, describe(error, 'email-code-link'));
  }
} else if (token && route === '/verify-email') await verifyFromLink(token);
else if (token && route === '/confirm-email') await confirmEmailFromLink(token);
else if (providerReturn.kind === 'second_factor') {
  // Back from a provider, the account asks for its second step.
  showSecondStep(
    providerReturn.challenge,
    providerReturn.methods,
    'You signed in with your provider.',
  );
} else {
  await showCurrentState();
  if (token) say(pageRegion(), 'This link is not one this app knows.');
  if (providerReturn.kind === 'error')
    identityProvidersView.sayReturnError($('#signed-out').hidden);
  else {
    identityProvidersView.sayLinked();
    if ($('#signed-out').hidden) identityProvidersView.sayStepUpDone();
  }
}
document.body.dataset.ready = 'true';
