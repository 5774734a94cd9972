// Form helpers: busy buttons, field errors beside their fields, and clearing.

/**
 * Runs `task` with `button` marked busy (`aria-disabled`, and its form `aria-busy`), so a double
 * click sends once. Not `disabled`: that would take the keyboard focus away from the button.
 * Does nothing while the button is already busy.
 */
export async function whileBusy(button, busyLabel, task) {
  if (button.getAttribute('aria-disabled') === 'true') return;
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
    values[name] = form.elements[name].type === 'password' ? value : value.trim();
  }
  return values;
}

/**
 * Shows each `{ field, message }` under its input (aria-invalid, aria-describedby); returns the
 * details that match no input of the form, for the general notice.
 */
export function showFieldErrors(form, details) {
  clearFieldErrors(form);
  const unmatched = [];
  for (const { field, message } of details) {
    const input = form.elements[field];
    if (!(input instanceof HTMLInputElement)) {
      unmatched.push(message);
      continue;
    }
    const id = `${input.id}-error`;
    let note = document.getElementById(id);
    if (!note) {
      note = document.createElement('p');
      note.id = id;
      note.className = 'field-error';
      input.after(note);
      note.textContent = message;
    } else {
      note.textContent += ` ${message}`;
    }
    input.setAttribute('aria-invalid', 'true');
    input.setAttribute('aria-describedby', id);
  }
  form.querySelector('[aria-invalid="true"]')?.focus();
  return unmatched;
}

export function clearFieldErrors(form) {
  for (const note of form.querySelectorAll('.field-error')) note.remove();
  for (const input of form.querySelectorAll('[aria-invalid]')) {
    input.removeAttribute('aria-invalid');
    input.removeAttribute('aria-describedby');
  }
}

/** Empties the form, its errors included. */
export function clearForm(form) {
  form.reset();
  clearFieldErrors(form);
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
