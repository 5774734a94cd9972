// The administration's webhooks card, shown to administrators only: the endpoints the service
// tells about events, a new one (its signing secret shown once), a test event, and each
// endpoint's deliveries with a button that sends a failed one again.
import { AuthError } from './sdk/index.js';
import { describe } from './messages.js';
import { clearFieldErrors, clearForm, showFieldErrors, valuesOf, whileBusy } from './forms.js';
import { clearResults, say } from './results.js';

const $ = (selector) => document.querySelector(selector);
const when = (iso) =>
  new Date(iso).toLocaleString('en', { dateStyle: 'medium', timeStyle: 'short' });

/** The service's own words beside the form's fields (they are written for administrators). */
function fieldMessages(error, fields) {
  const words = {};
  if (!(error instanceof AuthError)) return words;
  for (const { field, message } of error.details ?? []) {
    if (fields.includes(field) && !words[field]) words[field] = message;
  }
  return words;
}

/** Wires the card with the SDK client (its `admin` part) and the app's step-up. */
export function wireWebhooks({ auth, withStepUp }) {
  const card = $('#webhooks');
  const form = $('#webhook-add-form');
  const log = $('#webhook-deliveries');
  /** The endpoint whose deliveries are on screen. */
  let shown = null;

  /**
   * An administrator's only. Listed when asked, not on sign-in: every administration route
   * wants a recent sign-in (or the second factor), and only a click may ask for it.
   */
  function load(user) {
    card.hidden = user?.role !== 'admin';
    shown = null;
    log.hidden = true;
    $('#webhook-list').replaceChildren();
    $('#webhooks-status').textContent = '';
    $('#webhooks-show').hidden = false;
  }

  async function list() {
    try {
      const result = await withStepUp(() => auth.admin.listWebhooks());
      if (!result) return;
      const { webhooks } = result.data;
      $('#webhooks-show').hidden = true;
      $('#webhook-list').replaceChildren(...webhooks.map(endpointItem));
      $('#webhooks-status').textContent =
        webhooks.length === 0
          ? 'No endpoints yet.'
          : `${webhooks.length} endpoint${webhooks.length === 1 ? '' : 's'}.`;
    } catch (error) {
      $('#webhook-list').replaceChildren();
      $('#webhooks-status').textContent =
        `The webhook endpoints could not be listed. ${describe(error)}`;
    }
  }

  function button(text, label, className = 'secondary') {
    const element = document.createElement('button');
    element.type = 'button';
    element.className = className;
    element.textContent = text;
    element.setAttribute('aria-label', label);
    return element;
  }

  function endpointItem(webhook) {
    const item = document.createElement('li');
    item.dataset.webhook = webhook.id;
    const url = document.createElement('div');
    url.className = 'webhook-url';
    url.textContent = webhook.url;
    const detail = document.createElement('div');
    detail.className = 'hint';
    const events = webhook.events.includes('*') ? 'all events' : webhook.events.join(', ');
    detail.textContent = `${webhook.enabled ? 'Enabled' : 'Disabled'} · ${events}`;
    const test = button('Send a test event', `Send a test event to ${webhook.url}`);
    test.addEventListener('click', () =>
      whileBusy(test, 'Sending…', async () => {
        clearResults(card);
        try {
          if (!(await withStepUp(() => auth.admin.testWebhook(webhook.id)))) return;
          say(card, `A test event is on its way to ${webhook.url}.`, 'success');
          if (shown?.id === webhook.id) await deliveries();
        } catch (error) {
          say(card, `The test event was not sent. ${describe(error)}`);
        }
      }),
    );
    const open = button('Deliveries', `Deliveries to ${webhook.url}`);
    open.addEventListener('click', () =>
      whileBusy(open, 'Loading…', async () => {
        shown = webhook;
        $('#webhook-delivery-status').value = '';
        log.hidden = false;
        $('#webhook-deliveries-title').textContent = `Deliveries to ${webhook.url}`;
        await deliveries();
        $('#webhook-deliveries-title').focus();
      }),
    );
    const actions = document.createElement('div');
    actions.className = 'actions';
    actions.append(test, open);
    item.append(url, detail, actions);
    return item;
  }

  /** The shown endpoint's deliveries, newest first, of the status chosen. */
  async function deliveries() {
    if (!shown) return;
    const status = $('#webhook-delivery-status').value || undefined;
    const list = $('#webhook-delivery-list');
    try {
      const result = await withStepUp(() => auth.admin.listWebhookDeliveries(shown.id, status));
      if (!result) return;
      const found = result.data.deliveries;
      list.replaceChildren(...found.map(deliveryItem));
      $('#webhook-deliveries-status').textContent =
        found.length === 0
          ? `No ${status ?? ''} deliveries.`.replace('  ', ' ')
          : `${found.length} ${status ?? ''} deliver${found.length === 1 ? 'y' : 'ies'}, newest first.`.replace(
              '  ',
              ' ',
            );
    } catch (error) {
      list.replaceChildren();
      $('#webhook-deliveries-status').textContent =
        `The deliveries could not be listed. ${describe(error)}`;
    }
  }

  function deliveryItem(delivery) {
    const item = document.createElement('li');
    item.dataset.delivery = delivery.id;
    item.dataset.status = delivery.status;
    const what = document.createElement('div');
    what.textContent = `${delivery.type}: ${delivery.status}`;
    const detail = document.createElement('div');
    detail.className = 'hint';
    const attempts = `${delivery.attempts} attempt${delivery.attempts === 1 ? '' : 's'}`;
    const last =
      delivery.last_error ??
      (delivery.last_status_code ? `answered ${delivery.last_status_code}` : '');
    detail.textContent = [when(delivery.created_at), attempts, last].filter(Boolean).join(' · ');
    item.append(what, detail);
    if (delivery.status === 'failed') {
      const retry = button('Send again', `Send the ${delivery.type} event again`);
      retry.addEventListener('click', () =>
        whileBusy(retry, 'Sending…', async () => {
          try {
            const result = await withStepUp(() =>
              auth.admin.retryWebhookDelivery(shown.id, delivery.id),
            );
            if (!result) return;
            await deliveries();
            say(log, `The ${delivery.type} event is on its way again.`, 'success');
          } catch (error) {
            say(log, `The event was not sent again. ${describe(error)}`);
          }
        }),
      );
      item.append(retry);
    }
    return item;
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void whileBusy(form.querySelector('[type=submit]'), 'Adding…', async () => {
      clearFieldErrors(form);
      clearResults(form);
      const values = valuesOf(form);
      const events = values.events.split(/[\s,]+/).filter(Boolean);
      try {
        const result = await withStepUp(() =>
          auth.admin.createWebhook({ url: values.url, events }),
        );
        if (!result) return;
        clearForm(form);
        $('#webhook-secret-text').textContent = result.data.webhook.secret;
        $('#webhook-secret').hidden = false;
        await list();
        $('#webhook-secret-title').focus();
      } catch (error) {
        const words = fieldMessages(error, ['url', 'events']);
        if (Object.keys(words).length > 0) showFieldErrors(form, words);
        else say(form, `The endpoint was not added. ${describe(error)}`);
      }
    });
  });

  $('#webhook-secret-done').addEventListener('click', () => {
    $('#webhook-secret-text').textContent = '';
    $('#webhook-secret').hidden = true;
    $('#webhooks-title').focus();
  });
  $('#webhooks-show').addEventListener('click', () =>
    whileBusy($('#webhooks-show'), 'Listing…', list),
  );
  $('#webhook-delivery-status').addEventListener('change', () => void deliveries());

  return { load };
}
