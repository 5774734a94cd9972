// The example app: everything goes through the SDK, which keeps the tokens in HttpOnly cookies.
import { API_URL } from './config.js';
import { AuthError, createAuthClient } from './sdk/index.js';

const auth = createAuthClient({ baseUrl: API_URL });
// For trying the SDK in the browser's console.
window.auth = auth;

const $ = (selector) => document.querySelector(selector);

function log(text) {
  const item = document.createElement('li');
  item.textContent = `${new Date().toLocaleTimeString()}: ${text}`;
  $('#events').append(item);
}

function describe(error) {
  return error instanceof AuthError ? `${error.code}: ${error.message}` : String(error);
}

function showSignedIn(user) {
  $('#status').textContent = `Signed in as ${user.username}`;
  const rows = [
    ['Email', user.email],
    ['Username', user.username],
    ['Email verified', user.email_verified ? 'yes' : 'not yet'],
    ['Member since', new Date(user.created_at).toLocaleDateString()],
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
  $('#signed-in').hidden = false;
  $('#signed-out').hidden = true;
}

function showSignedOut(status = 'Signed out') {
  $('#status').textContent = status;
  $('#signed-in').hidden = true;
  $('#signed-out').hidden = false;
  $('#protected-result').textContent = '';
}

auth.onSessionEnded((reason) => {
  log(`session ended (${reason})`);
  showSignedOut(reason === 'logout' ? 'Signed out' : 'Your session has ended, log in again');
});

async function refreshUser() {
  try {
    const { data } = await auth.verifyToken();
    showSignedIn(data.user);
  } catch (error) {
    if (!(error instanceof AuthError && error.code === 'INVALID_TOKEN')) log(describe(error));
    showSignedOut();
  }
}

async function verifyFromLink(token) {
  // The token leaves the address bar at once: it must not stay in history or be shared.
  history.replaceState(null, '', location.pathname);
  try {
    const { data } = await auth.verifyEmail({ token });
    log(`email verified for ${data.user.email}`);
  } catch (error) {
    log(`verification failed: ${describe(error)}`);
  }
}

$('#register-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const form = new FormData(event.target);
  try {
    const { message } = await auth.register({
      email: form.get('email'),
      username: form.get('username'),
      password: form.get('password'),
      emailConfig: { applicationUrl: `${location.origin}/` },
    });
    log(message);
  } catch (error) {
    log(`registration failed: ${describe(error)}`);
  }
});

$('#login-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const form = new FormData(event.target);
  try {
    const { data } = await auth.login({ email: form.get('email'), password: form.get('password') });
    log(`logged in as ${data.user.username}`);
    await refreshUser();
  } catch (error) {
    log(`login failed: ${describe(error)}`);
  }
});

$('#call-protected').addEventListener('click', async () => {
  // Any route of your own API works the same way; verify-token stands in for one here.
  const response = await auth.fetch(`${API_URL}/auth/verify-token`);
  const body = await response.json();
  $('#protected-result').textContent = `${response.status} ${JSON.stringify(body, null, 2)}`;
  log(`protected call: ${response.status}`);
});

$('#logout').addEventListener('click', async () => {
  try {
    await auth.logout();
  } catch (error) {
    log(`logout: ${describe(error)}`);
  }
});

const token = new URLSearchParams(location.search).get('token');
if (token) await verifyFromLink(token);
await refreshUser();
document.body.dataset.ready = 'true';
