// Where the outcome of an action appears: beside the form or card that caused it, never in a
// banner at the top of the page. Its area is a live region (said by a screen reader) that takes
// the focus, so it is in view and read out whether the page is a desktop window or a phone.

/** The region's result area: created once, right after its heading, before anything is said. */
export function resultArea(region) {
  const existing = region.querySelector(':scope > .result');
  if (existing) return existing;
  const area = document.createElement('p');
  area.id = `${region.id}-result`;
  area.className = 'result';
  area.tabIndex = -1;
  area.setAttribute('role', 'status');
  area.setAttribute('aria-live', 'polite');
  const heading = region.querySelector(':scope > h2, :scope > h3');
  if (heading) heading.after(area);
  else region.prepend(area);
  return area;
}

/**
 * Says `text` in `region` (a form or a card): `error`, `success` or `info`. The focus moves to
 * it unless `focus: false` (a message that comes with no action of the person's own, such as a
 * list refreshing, must not take the focus from where they are).
 */
export function say(region, text, kind = 'error', { focus = true } = {}) {
  const area = resultArea(region);
  // An error interrupts a screen reader; news that all went well waits its turn.
  area.setAttribute('role', kind === 'error' ? 'alert' : 'status');
  area.className = `result ${kind}`;
  area.textContent = text;
  // Said with no action of the person's (a list that could not load): no later action made it
  // stale, so only its own region clears it.
  area.toggleAttribute('data-standing', !focus);
  if (text && focus) {
    area.focus({ preventScroll: true });
    area.scrollIntoView({ block: 'nearest' });
  }
}

/** Empties the region's result area (and every area inside it), and takes its buttons away. */
export function clearResults(region) {
  for (const area of region.querySelectorAll('.result')) {
    area.textContent = '';
    area.className = 'result';
    area.removeAttribute('data-standing');
  }
  for (const action of region.querySelectorAll('.result-action')) action.remove();
}

/**
 * An action starts: what earlier actions said anywhere on the page belongs to them, and is
 * stale now. What no action said stands.
 */
export function clearEarlierResults() {
  for (const area of document.querySelectorAll('.result:not([data-standing])')) {
    area.textContent = '';
    area.className = 'result';
  }
  for (const action of document.querySelectorAll('.result-action')) action.remove();
}
