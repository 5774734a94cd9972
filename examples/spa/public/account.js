// The signed-in part of the example app: profile, sessions, password, email and deletion, each
// through one SDK call; an account without a password confirms with a recent sign-in instead.
import { AuthError } from './sdk/index.js';
import { describe } from './messages.js';
import { clearForm, whileBusy } from './forms.js';
import { clearResults, say } from './results.js';

const $ = (selector) => document.querySelector(selector);

/** "Chrome on Linux" from a user agent, or the agent itself when it is no browser we know. */
export function deviceName(userAgent) {
  if (!userAgent) return 'Unknown device';
  const browser = [
    ['Edg/', 'Edge'],
    ['Firefox/', 'Firefox'],
    ['Chrome/', 'Chrome'],
    ['Safari/', 'Safari'],
  ].find(([token]) => userAgent.includes(token))?.[1];
  const system = [
    ['Android', 'Android'],
    ['iPhone', 'iOS'],
    ['Windows', 'Windows'],
    ['Mac OS X', 'macOS'],
    ['Linux', 'Linux'],
  ].find(([token]) => userAgent.includes(token))?.[1];
  if (!browser) return userAgent.slice(0, 60);
  return system ? `${browser} on ${system}` : browser;
}

/**
 * Where a session signed in from: its address, or "this computer" for a loopback one (the browser
 * on the service's own machine, where an address such as ::1 means nothing to a person).
 */
export function placeName(ip) {
  if (!ip) return 'unknown address';
  const loopback = ip === '::1' || /^(::ffff:)?127\./i.test(ip);
  return loopback ? 'this computer' : ip;
}

const when = (iso) =>
  new Date(iso).toLocaleString('en', { dateStyle: 'medium', timeStyle: 'short' });

/** How often the sessions list is read again while the page is in view. */
const SESSIONS_EVERY_MS = 30_000;

/**
 * Wires the signed-in forms with what the app shares: the SDK client, the view of a signed-in
 * user, its way of handling a form (busy button, field errors, result) and the step-up.
 */
export function wireAccount({ auth, showSignedIn, onSubmit, withStepUp }) {
  const card = $('#sessions');
  let timer;
  /** The signed-in account's address, for the mail that sets a password. */
  let email = null;

  /**
   * An account without a password confirms its changes with a recent sign-in: no password field,
   * a word on why none is asked for, and instead of changing a password, a link to set one.
   */
  function setProfile(profile) {
    email = profile.email;
    const without = !profile.has_password;
    for (const input of [$('#email-password'), $('#delete-password')]) {
      input.closest('.field').hidden = without;
      input.disabled = without;
    }
    for (const note of document.querySelectorAll('.no-password-proof')) note.hidden = !without;
    $('#password-form').hidden = without;
    $('#set-password').hidden = !without;
  }

  $('#set-password-send').addEventListener('click', () => {
    const region = $('#set-password');
    void whileBusy($('#set-password-send'), 'Sending…', async () => {
      clearResults(region);
      try {
        await auth.password.forgot({ email, applicationUrl: `${location.origin}/reset-password` });
        say(region, `We sent a link to ${email}. Open it to choose your password.`, 'success');
      } catch (error) {
        say(region, `The link was not sent. ${describe(error, 'forgot')}`);
      }
    });
  });

  /**
   * Lists the sessions, and keeps the list live: read again every little while the page is in
   * view, and when it comes back into view (a sign-in elsewhere shows up without a reload).
   */
  async function loadSessions() {
    clearTimeout(timer);
    const list = $('#session-list');
    try {
      const { data } = await auth.account.listSessions();
      // A person reading the list must not lose the button under their finger or focus.
      if (!list.contains(document.activeElement) || list.children.length === 0) {
        list.replaceChildren(...data.sessions.map(sessionItem));
      }
      $('#end-others').hidden = data.sessions.length < 2;
      $('#sessions-step-up').hidden = true;
      if (card.querySelector('.result.error')) clearResults(card);
    } catch (error) {
      say(card, `The sessions could not be listed. ${describe(error)}`, 'error', { focus: false });
      // A role that must show its second factor: confirming it lists them.
      $('#sessions-step-up').hidden = !(
        error instanceof AuthError && error.code === 'SECOND_FACTOR_REQUIRED'
      );
    }
    if (!$('#signed-in').hidden) timer = setTimeout(whenVisible, SESSIONS_EVERY_MS);
  }

  function whenVisible() {
    if (document.visibilityState === 'visible' && !$('#signed-in').hidden) void loadSessions();
  }
  document.addEventListener('visibilitychange', whenVisible);

  /** After a sign-out: nothing more is read. */
  function reset() {
    clearTimeout(timer);
    $('#session-list').replaceChildren();
    clearResults(card);
  }

  function sessionItem(session) {
    const item = document.createElement('li');
    const text = document.createElement('div');
    const device = document.createElement('div');
    device.className = 'session-device';
    device.textContent = deviceName(session.user_agent);
    const detail = document.createElement('div');
    detail.className = 'hint';
    detail.textContent = `${placeName(session.ip)} · signed in ${when(session.created_at)} · last used ${when(session.last_used_at)}`;
    text.append(device, detail);
    item.append(text);
    if (session.current) {
      const mark = document.createElement('span');
      mark.className = 'hint session-current';
      mark.textContent = 'This device';
      item.append(mark);
    } else {
      const end = document.createElement('button');
      end.type = 'button';
      end.className = 'secondary';
      end.textContent = 'Sign out';
      end.setAttribute('aria-label', `Sign out ${device.textContent} (${placeName(session.ip)})`);
      end.addEventListener('click', () => {
        void whileBusy(end, 'Signing out…', async () => {
          clearResults(card);
          let said = ['That device was signed out.', 'success'];
          try {
            await auth.account.endSession(session.id);
          } catch (error) {
            said = [`The session could not be ended. ${describe(error)}`, 'error'];
          }
          // Its row is gone: the result takes the focus.
          end.blur();
          await loadSessions();
          say(card, ...said);
        });
      });
      item.append(end);
    }
    return item;
  }

  $('#sessions-step-up').addEventListener('click', () => {
    void whileBusy($('#sessions-step-up'), 'Confirming…', async () => {
      if (await withStepUp(() => auth.account.listSessions())) await loadSessions();
    });
  });

  $('#end-others').addEventListener('click', () => {
    void whileBusy($('#end-others'), 'Signing out…', async () => {
      clearResults(card);
      let said;
      try {
        const { data } = await auth.account.endOtherSessions();
        const ended = `${data.ended} other session${data.ended === 1 ? '' : 's'}`;
        said = [`Signed out of ${ended}.`, 'success'];
      } catch (error) {
        said = [`The other sessions could not be ended. ${describe(error)}`, 'error'];
      }
      await loadSessions();
      say(card, ...said);
    });
  });

  onSubmit('#profile-form', 'Saving…', async (values, form) => {
    const { data } = await auth.account.updateProfile({
      username: values.username,
      name: values.name || null,
      picture: values.picture || null,
    });
    showSignedIn(data.user);
    say(form, 'Your profile was saved.', 'success');
  });

  onSubmit('#password-form', 'Changing…', async (values, form) => {
    await auth.password.change(values);
    clearForm(form);
    say(form, 'Your password was changed. Every other device was signed out.', 'success');
    await loadSessions();
  });

  onSubmit('#email-form', 'Sending…', async (values, form) => {
    const sent = await withStepUp(() =>
      auth.account.requestEmailChange({
        ...values,
        applicationUrl: `${location.origin}/confirm-email`,
      }),
    );
    if (!sent) {
      say(form, 'Nothing was sent: your address stays as it is.', 'info');
      return;
    }
    clearForm(form);
    say(
      form,
      `We sent a link to ${values.newEmail}. Your address changes once you open it.`,
      'success',
    );
  });

  onSubmit('#delete-form', 'Deleting…', async (values, form) => {
    const deleted = await withStepUp(() => auth.account.delete(values));
    if (!deleted) say(form, 'Your account was not deleted.', 'info');
  });

  return { loadSessions, reset, setProfile };
}
