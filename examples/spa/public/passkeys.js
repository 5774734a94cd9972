// Passkeys on the account page: add one (the browser's own prompt; a recent sign-in first), rename
// and remove them. Signing in with one lives in app.js, beside the password login.
import { describe, fieldWords } from './messages.js';
import { clearFieldErrors, clearForm, showFieldErrors, whileBusy } from './forms.js';
import { clearEarlierResults, clearResults, say } from './results.js';

const $ = (selector) => document.querySelector(selector);

const day = (iso) => new Date(iso).toLocaleDateString('en', { dateStyle: 'medium' });

/**
 * Wires the passkeys card with the SDK client and the app's form handling and step-up
 * (`withStepUp`: a proof the account has when the service wants a recent sign-in); `onChange`
 * runs once a passkey was added or removed (it is a second factor too), `onCount` each time
 * they are listed.
 */
export function wirePasskeys({ auth, onSubmit, withStepUp, onChange, onCount }) {
  const card = $('#passkeys');
  /** Whether the account has a password: a passkey replaces it, or is the way in with no other. */
  let hasPassword = true;
  let count = 0;

  /** How many there are, said as it is for this account. */
  function statusText() {
    if (count === 0) return hasPassword ? 'None yet: signing in takes your password.' : 'None yet.';
    const instead = hasPassword ? 'instead of your password' : 'with no password';
    return count === 1
      ? `1 passkey: sign in with it ${instead}.`
      : `${count} passkeys: sign in with any of them ${instead}.`;
  }

  function render() {
    $('#passkeys-with-password').hidden = !hasPassword;
    // Until the list is read there is nothing to say (a browser without passkeys says so).
    if ($('#passkey-list').dataset.listed === 'true') {
      $('#passkeys-status').textContent = statusText();
    }
  }

  /** The profile says whether the account has a password. */
  function setHasPassword(value) {
    hasPassword = value;
    render();
  }

  async function load() {
    const list = $('#passkey-list');
    if (!(await auth.passkeys.support()).passkeys) {
      $('#passkeys-status').textContent = 'This browser cannot use passkeys.';
      $('#passkey-add-form').hidden = true;
    }
    try {
      const { data } = await auth.passkeys.list();
      list.replaceChildren(...data.passkeys.map(passkeyItem));
      count = data.passkeys.length;
      onCount(count);
      list.dataset.listed = 'true';
      render();
    } catch (error) {
      list.replaceChildren();
      delete list.dataset.listed;
      $('#passkeys-status').textContent = `Your passkeys could not be listed. ${describe(error)}`;
    }
  }

  function passkeyItem(passkey) {
    const item = document.createElement('li');
    item.dataset.passkey = passkey.id;
    const rename = document.createElement('form');
    rename.className = 'passkey-rename';
    rename.noValidate = true;
    const label = document.createElement('label');
    label.textContent = 'Name';
    label.htmlFor = `passkey-${passkey.id}`;
    const input = document.createElement('input');
    input.id = `passkey-${passkey.id}`;
    input.name = 'name';
    input.value = passkey.name;
    input.maxLength = 64;
    input.autocomplete = 'off';
    const save = document.createElement('button');
    save.textContent = 'Rename';
    save.className = 'secondary';
    rename.append(label, input, save);
    rename.addEventListener('submit', (event) => {
      event.preventDefault();
      void whileBusy(save, 'Saving…', async () => {
        clearResults(card);
        clearFieldErrors(rename);
        try {
          await auth.passkeys.rename(passkey.id, input.value);
          await load();
          say(card, 'The passkey was renamed.', 'success');
        } catch (error) {
          // A refused name is said beside its field, as the other forms say theirs.
          const words = fieldWords(error, ['name'], 'passkey');
          if (words.name) showFieldErrors(rename, words);
          else say(card, `The passkey was not renamed. ${describe(error, 'passkey')}`);
        }
      });
    });
    const detail = document.createElement('div');
    detail.className = 'hint';
    detail.textContent = `Added ${day(passkey.created_at)} · ${
      passkey.last_used_at ? `last used ${day(passkey.last_used_at)}` : 'never used yet'
    }`;
    const remove = document.createElement('button');
    remove.type = 'button';
    remove.className = 'danger';
    remove.textContent = 'Remove';
    remove.setAttribute('aria-label', `Remove the passkey ${passkey.name}`);
    remove.addEventListener('click', async () => {
      if (remove.getAttribute('aria-disabled') === 'true') return;
      // The removal starts with its question: what earlier actions said is stale now.
      clearEarlierResults();
      if (!(await confirmRemoval(passkey.name))) {
        remove.focus();
        return;
      }
      void whileBusy(remove, 'Removing…', async () => {
        clearResults(card);
        try {
          await auth.passkeys.delete(passkey.id);
          await load();
          say(
            card,
            `The passkey “${passkey.name}” was removed: it no longer signs you in.`,
            'success',
          );
          void onChange();
        } catch (error) {
          say(card, `The passkey was not removed. ${describe(error, 'passkey')}`);
        }
      });
    });
    item.append(rename, detail, remove);
    return item;
  }

  /**
   * Asks before a passkey goes, in a modal dialog: the focus on "Keep it", Escape cancels.
   * Resolves true to remove it.
   */
  function confirmRemoval(name) {
    const dialog = $('#passkey-remove-dialog');
    $('#passkey-remove-title').textContent = `Remove the passkey “${name}”?`;
    dialog.returnValue = '';
    dialog.showModal();
    $('#passkey-remove-cancel').focus();
    return new Promise((resolve) => {
      const closed = () => {
        // The close event of the previous opening is queued, and may come after this one began
        // (a quick "Keep it", then Remove again): it is not this opening's answer.
        if (dialog.open) return;
        dialog.removeEventListener('close', closed);
        resolve(dialog.returnValue === 'remove');
      };
      dialog.addEventListener('close', closed);
    });
  }
  $('#passkey-remove-confirm').addEventListener('click', () =>
    $('#passkey-remove-dialog').close('remove'),
  );
  $('#passkey-remove-cancel').addEventListener('click', () => $('#passkey-remove-dialog').close());

  onSubmit('#passkey-add-form', 'Waiting for your passkey…', async (values, form) => {
    const result = await withStepUp(() =>
      auth.passkeys.register({ name: values.name || undefined }),
    );
    if (!result) {
      say(form, 'No passkey was added.', 'info');
      return;
    }
    clearForm(form);
    await load();
    const after = hasPassword ? ', or use it after your password' : '';
    say(
      form,
      `The passkey “${result.data.passkey.name}” was added. Sign in with it next time${after}.`,
      'success',
    );
    void onChange();
  });

  function reset() {
    if ($('#passkey-remove-dialog').open) $('#passkey-remove-dialog').close();
    onCount(0);
    count = 0;
    hasPassword = true;
    $('#passkey-list').replaceChildren();
    delete $('#passkey-list').dataset.listed;
    clearForm($('#passkey-add-form'));
  }

  return { load, reset, setHasPassword };
}
