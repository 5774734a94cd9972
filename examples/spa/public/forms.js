// Form helpers: busy buttons, field errors beside their fields, password fields, and clearing.
import { clearEarlierResults, clearResults } from './results.js';

/**
 * Runs `task` with `button` marked busy (`aria-disabled`, and its form `aria-busy`), so a double
 * click sends once. Not `disabled`: that would take the keyboard focus away from the button.
 * Does nothing while the button is already busy. An action starts here: earlier results go.
 */
export async function whileBusy(button, busyLabel, task) {
  if (button.getAttribute('aria-disabled') === 'true') return;
  clearEarlierResults();
  const label = button.textContent;
  const region = button.form ?? button;
  region.setAttribute('aria-busy', 'true');
  button.setAttribute('aria-disabled', 'true');
  button.textContent = busyLabel;
  try {
    await task();
  } finally {
    region.removeAttribute('aria-busy');
    button.removeAttribute('aria-disabled');
    button.textContent = label;
  }
}

/** The form's fields as an object of trimmed strings (passwords as typed). */
export function valuesOf(form) {
  const values = {};
  for (const [name, value] of new FormData(form)) {
    // A shown password is a text field for the moment: it is still sent exactly as typed.
    const password = form.elements[name].autocomplete.endsWith('password');
    values[name] = password ? value : value.trim();
  }
  return values;
}

/**
 * Shows `words` (`{ [field]: text }`) under their inputs (aria-invalid, aria-describedby beside
 * the field's own hint) and moves the focus to the first one, its words in view.
 */
export function showFieldErrors(form, words) {
  clearFieldErrors(form);
  for (const [field, text] of Object.entries(words)) {
    const input = form.elements[field];
    const note = document.createElement('p');
    note.id = `${input.id}-error`;
    note.className = 'field-error';
    note.textContent = text;
    (input.closest('.password-box') ?? input).after(note);
    input.setAttribute('aria-invalid', 'true');
    input.dataset.describedby ??= input.getAttribute('aria-describedby') ?? '';
    input.setAttribute('aria-describedby', `${note.id} ${input.dataset.describedby}`.trim());
  }
  const first = form.querySelector('[aria-invalid="true"]');
  if (first) {
    first.focus({ preventScroll: true });
    document.getElementById(`${first.id}-error`)?.scrollIntoView({ block: 'nearest' });
  }
}

export function clearFieldErrors(form) {
  for (const note of form.querySelectorAll('.field-error')) note.remove();
  for (const input of form.querySelectorAll('[aria-invalid]')) {
    input.removeAttribute('aria-invalid');
    const own = input.dataset.describedby;
    if (own) input.setAttribute('aria-describedby', own);
    else input.removeAttribute('aria-describedby');
  }
}

/** The names of the form's inputs that can be marked. */
export function fieldsOf(form) {
  // A field switched off (the other of two ways to answer) is not on screen to be marked.
  return [...form.querySelectorAll('input[name]:not(:disabled)')].map((input) => input.name);
}

/** Empties the form, its errors and its result included; passwords hidden again. */
export function clearForm(form) {
  form.reset();
  clearFieldErrors(form);
  clearResults(form);
  for (const toggle of form.querySelectorAll('.show-password')) hidePassword(toggle);
}

/**
 * A "Show" button beside every password field: people check what they typed instead of typing
 * it twice. It says what it does (aria-pressed) and hides the password again when the form is
 * sent or emptied.
 */
export function addPasswordToggles(root) {
  for (const input of root.querySelectorAll('input[type="password"]')) {
    const box = document.createElement('div');
    box.className = 'password-box';
    input.before(box);
    const toggle = document.createElement('button');
    toggle.type = 'button';
    toggle.className = 'show-password';
    toggle.setAttribute('aria-controls', input.id);
    toggle.setAttribute('aria-label', 'Show the password');
    box.append(input, toggle);
    hidePassword(toggle);
    toggle.addEventListener('click', () => {
      const shown = input.type === 'text';
      input.type = shown ? 'password' : 'text';
      toggle.setAttribute('aria-pressed', String(!shown));
      toggle.textContent = shown ? 'Show' : 'Hide';
    });
    input.form?.addEventListener('submit', () => hidePassword(toggle));
  }
}

function hidePassword(toggle) {
  const input = document.getElementById(toggle.getAttribute('aria-controls'));
  input.type = 'password';
  toggle.setAttribute('aria-pressed', 'false');
  toggle.textContent = 'Show';
}

/** The rules of a new password, under its field before anything is typed. */
export function addPasswordRules(root, rules) {
  for (const input of root.querySelectorAll('input[autocomplete="new-password"]')) {
    const hint = document.createElement('p');
    hint.id = `${input.id}-rules`;
    hint.className = 'hint';
    hint.textContent = rules;
    (input.closest('.password-box') ?? input).after(hint);
    const described = input.getAttribute('aria-describedby');
    input.setAttribute('aria-describedby', described ? `${described} ${hint.id}` : hint.id);
  }
}

/**
 * Two ways to answer one question (a code from the app, or a recovery code; a code or the
 * password): one field shown and sent at a time (the other is disabled, so the form leaves it
 * out), and `button` offers the other, moving the focus to it. `choices` are the two inputs,
 * each with its button text ("Use a recovery code instead"); the first is shown at first and
 * after `reset()`.
 */
export function eitherField(button, choices) {
  let active = 0;
  const apply = () => {
    choices.forEach(({ input }, index) => {
      input.closest('.field').hidden = index !== active;
      input.disabled = index !== active;
    });
    button.textContent = choices[1 - active].offer;
  };
  button.addEventListener('click', () => {
    active = 1 - active;
    if (button.form) clearFieldErrors(button.form);
    apply();
    choices[active].input.focus();
  });
  apply();
  return {
    reset() {
      active = 0;
      apply();
    },
    /** The input shown now. */
    get input() {
      return choices[active].input;
    },
  };
}
