// The signed-in part of the example app: profile, sessions, password, email and deletion, each
// through one SDK call.
import { describe } from './messages.js';
import { clearForm, whileBusy } from './forms.js';

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

const when = (iso) =>
  new Date(iso).toLocaleString('en', { dateStyle: 'medium', timeStyle: 'short' });

/**
 * Wires the signed-in forms with what the app shares: the SDK client, its notice, the view of a
 * signed-in user, and its way of handling a form (busy button, field errors, notice).
 */
export function wireAccount({ auth, notify, showSignedIn, onSubmit }) {
  async function loadSessions() {
    const list = $('#session-list');
    try {
      const { data } = await auth.listSessions();
      list.replaceChildren(...data.sessions.map(sessionItem));
      $('#end-others').hidden = data.sessions.length < 2;
    } catch (error) {
      const item = document.createElement('li');
      item.textContent = `The sessions could not be listed. ${describe(error)}`;
      list.replaceChildren(item);
    }
  }

  function sessionItem(session) {
    const item = document.createElement('li');
    const text = document.createElement('div');
    const device = document.createElement('div');
    device.className = 'session-device';
    device.textContent = deviceName(session.user_agent);
    const detail = document.createElement('div');
    detail.className = 'hint';
    detail.textContent = `${session.ip ?? 'unknown address'} · signed in ${when(session.created_at)} · last used ${when(session.last_used_at)}`;
    text.append(device, detail);
    item.append(text);
    if (session.current) {
      const mark = document.createElement('span');
      mark.className = 'hint';
      mark.textContent = 'This device';
      item.append(mark);
    } else {
      const end = document.createElement('button');
      end.type = 'button';
      end.className = 'secondary';
      end.textContent = 'Sign out';
      end.setAttribute(
        'aria-label',
        `Sign out ${device.textContent} (${session.ip ?? 'unknown address'})`,
      );
      end.addEventListener('click', () => {
        void whileBusy(end, 'Signing out…', async () => {
          try {
            await auth.endSession(session.id);
            notify('That device was signed out.', 'success');
          } catch (error) {
            notify(`The session could not be ended. ${describe(error)}`);
          }
          await loadSessions();
        });
      });
      item.append(end);
    }
    return item;
  }

  $('#end-others').addEventListener('click', () => {
    void whileBusy($('#end-others'), 'Signing out…', async () => {
      try {
        const { data } = await auth.endOtherSessions();
        notify(
          `Signed out of ${data.ended} other session${data.ended === 1 ? '' : 's'}.`,
          'success',
        );
      } catch (error) {
        notify(`The other sessions could not be ended. ${describe(error)}`);
      }
      await loadSessions();
    });
  });

  onSubmit('#profile-form', 'Saving…', async (values) => {
    const { data } = await auth.updateProfile({
      username: values.username,
      name: values.name || null,
      picture: values.picture || null,
    });
    showSignedIn(data.user);
    notify('Your profile was saved.', 'success');
  });

  onSubmit('#password-form', 'Changing…', async (values, form) => {
    await auth.changePassword(values);
    clearForm(form);
    notify('Your password was changed. Every other device was signed out.', 'success');
    await loadSessions();
  });

  onSubmit('#email-form', 'Sending…', async (values, form) => {
    const { message } = await auth.requestEmailChange({
      ...values,
      applicationUrl: `${location.origin}/confirm-email`,
    });
    clearForm(form);
    notify(message, 'success');
  });

  onSubmit('#delete-form', 'Deleting…', async (values) => {
    await auth.deleteAccount(values);
  });

  return { loadSessions };
}
