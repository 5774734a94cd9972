// Organizations: the switcher in the header (the session's active organization, carried by its
// access tokens), the list with members and invitations, and the page of the mailed invitation.
import { AuthError } from './sdk/index.js';
import { describe } from './messages.js';
import { clearForm, whileBusy } from './forms.js';
import { clearEarlierResults, clearResults, say } from './results.js';

const $ = (selector) => document.querySelector(selector);
const ROLES = { owner: 'Owner', admin: 'Admin', member: 'Member' };
/** The choice of this tab's session, so the switcher shows it after a reload. */
const ACTIVE = 'example-app:active-organization';
/** An invitation's token waiting for a sign-in (or a new account) in this tab. */
const PENDING = 'example-app:invitation';

const store = window.sessionStorage;

function option(text, value) {
  const element = document.createElement('option');
  element.textContent = text;
  element.value = value;
  return element;
}

const day = (iso) => new Date(iso).toLocaleDateString('en', { dateStyle: 'medium' });

function button(text, className = 'secondary') {
  const element = document.createElement('button');
  element.type = 'button';
  element.textContent = text;
  element.className = className;
  return element;
}

function who(strong, rest) {
  const span = document.createElement('span');
  span.className = 'org-who';
  const name = document.createElement('strong');
  name.textContent = strong;
  span.append(name, ` · ${rest}`);
  return span;
}

/**
 * Wires the organizations card, the header's switcher and the invitation page with the SDK
 * client, the app's form handling, `link` (an address of this app) and `show` (one view).
 */
export function wireOrganizations({ auth, onSubmit, link, show }) {
  const card = $('#organizations');
  /** The caller's organizations, as last listed. */
  let organizations = [];
  /** The organization whose members are on screen. */
  let managed = null;
  /** The signed-in user's id, to tell its own membership (leave, not remove). */
  let me = null;

  async function load(user) {
    me = user?.id ?? me;
    try {
      organizations = (await auth.organizations.list()).data.organizations;
    } catch (error) {
      organizations = [];
      say(card, `Your organizations could not be listed. ${describe(error)}`, 'error', {
        focus: false,
      });
    }
    renderList();
    renderSwitcher();
    const still = managed && organizations.find((org) => org.id === managed.id);
    if (still) await manage(still, false);
    else closeManage();
  }

  function renderList() {
    const items = organizations.map((org) => {
      const item = document.createElement('li');
      item.dataset.organization = org.id;
      const open = button(`Members of ${org.name}`);
      open.addEventListener('click', () => void manage(org, true));
      item.append(who(org.name, ROLES[org.role]), open);
      return item;
    });
    if (items.length === 0) {
      const none = document.createElement('li');
      none.textContent = 'You belong to no organization yet.';
      items.push(none);
    }
    $('#org-list').replaceChildren(...items);
  }

  function renderSwitcher() {
    const select = $('#org-select');
    const active = store.getItem(ACTIVE);
    const known = organizations.some((org) => org.id === active);
    // Removed since (or gone): the service dropped it from the session at its next refresh.
    if (active && !known) store.removeItem(ACTIVE);
    const none = option('Just me (no organization)', '');
    select.replaceChildren(none, ...organizations.map((org) => option(org.name, org.id)));
    select.value = known ? active : '';
    $('#org-switcher').hidden = false;
    sayActive();
  }

  function sayActive() {
    const org = organizations.find((candidate) => candidate.id === $('#org-select').value);
    $('#org-active').textContent = org ? `as ${ROLES[org.role].toLowerCase()}` : '';
  }

  $('#org-select').addEventListener('change', () => {
    const select = $('#org-select');
    const id = select.value || null;
    select.disabled = true;
    clearEarlierResults();
    auth.organizations
      .switch(id)
      .then(
        () => {
          if (id) store.setItem(ACTIVE, id);
          else store.removeItem(ACTIVE);
          sayActive();
        },
        async (error) => {
          say(card, `The organization was not switched. ${describe(error)}`);
          await load();
        },
      )
      .finally(() => {
        select.disabled = false;
      });
  });

  function closeManage() {
    managed = null;
    $('#org-manage').hidden = true;
  }

  /** The members (and, for its admins, the invitations) of one organization. */
  async function manage(org, focus) {
    managed = org;
    const admin = org.role === 'owner' || org.role === 'admin';
    $('#org-manage-title').textContent = `Members of ${org.name}`;
    $('#org-invitations').hidden = !admin;
    $('#org-manage').hidden = false;
    try {
      const [members, invitations] = await Promise.all([
        auth.organizations.listMembers(org.id),
        admin ? auth.organizations.listInvitations(org.id) : null,
      ]);
      $('#member-list').replaceChildren(...members.data.members.map((m) => memberItem(org, m)));
      if (invitations) {
        $('#invitation-list').replaceChildren(
          ...invitations.data.invitations.map((i) => invitationItem(org, i)),
        );
      }
    } catch (error) {
      return gone(error, `The members could not be listed. ${describe(error)}`);
    }
    if (focus) $('#org-manage-title').focus();
  }

  /** The organization went away under us (removed, deleted): the list says so now. */
  async function gone(error, words) {
    if (error instanceof AuthError && error.code === 'ORGANIZATION_NOT_FOUND') {
      closeManage();
      await load();
    }
    say(card, words);
  }

  function memberItem(org, member) {
    const item = document.createElement('li');
    item.dataset.member = member.email;
    const actions = document.createElement('span');
    actions.className = 'org-actions';
    const self = member.user_id === me;
    const ownerOnly = member.role === 'owner' && org.role !== 'owner';
    const admin = org.role === 'owner' || org.role === 'admin';
    if (admin && !self && !ownerOnly) {
      const select = document.createElement('select');
      select.setAttribute('aria-label', `Role of ${member.email}`);
      const roles = org.role === 'owner' ? ['member', 'admin', 'owner'] : ['member', 'admin'];
      select.append(...roles.map((role) => option(ROLES[role], role)));
      select.value = member.role;
      const change = button('Change role');
      change.setAttribute('aria-label', `Change the role of ${member.email}`);
      change.addEventListener('click', () =>
        act(change, 'Saving…', async () => {
          await auth.organizations.changeRole(org.id, member.user_id, select.value);
          return `${member.email} is ${ROLES[select.value].toLowerCase()} now.`;
        }),
      );
      const remove = button('Remove', 'danger');
      remove.setAttribute('aria-label', `Remove ${member.email}`);
      remove.addEventListener('click', () =>
        act(remove, 'Removing…', async () => {
          await auth.organizations.removeMember(org.id, member.user_id);
          return `${member.email} is no longer a member.`;
        }),
      );
      actions.append(select, change, remove);
    } else if (self) {
      const leave = button('Leave');
      leave.setAttribute('aria-label', `Leave ${org.name}`);
      leave.addEventListener('click', () =>
        act(leave, 'Leaving…', async () => {
          await auth.organizations.removeMember(org.id, member.user_id);
          closeManage();
          return `You left ${org.name}.`;
        }),
      );
      actions.append(leave);
    }
    item.append(who(member.email, `${member.username}, ${ROLES[member.role]}`), actions);
    return item;
  }

  function invitationItem(org, invitation) {
    const item = document.createElement('li');
    item.dataset.invitation = invitation.email;
    const withdraw = button('Withdraw');
    withdraw.setAttribute('aria-label', `Withdraw the invitation of ${invitation.email}`);
    withdraw.addEventListener('click', () =>
      act(withdraw, 'Withdrawing…', async () => {
        await auth.organizations.withdrawInvitation(org.id, invitation.id);
        return `The invitation of ${invitation.email} was withdrawn.`;
      }),
    );
    const rest = `${ROLES[invitation.role]}, until ${day(invitation.expires_at)}`;
    item.append(who(invitation.email, rest), withdraw);
    return item;
  }

  /** A button's action on the card: its outcome said there, the lists read again. */
  function act(control, busy, run) {
    return whileBusy(control, busy, async () => {
      clearResults(card);
      try {
        const words = await run();
        await load();
        say(card, words, 'success');
      } catch (error) {
        await gone(error, describe(error));
      }
    });
  }

  onSubmit('#org-create-form', 'Creating…', async (values, form) => {
    const { data } = await auth.organizations.create({ name: values.name });
    clearForm(form);
    await load();
    await manage(data.organization, false);
    say(card, `${data.organization.name} was created: you are its owner.`, 'success');
  });

  onSubmit('#invite-form', 'Sending…', async (values, form) => {
    if (!managed) return;
    await auth.organizations.invite(managed.id, {
      email: values.email,
      role: values.role,
      applicationUrl: link('/accept-invitation'),
    });
    clearForm(form);
    await manage(managed, false);
    say(card, `We emailed an invitation to ${values.email}.`, 'success');
  });

  /** The token of the mailed link, kept (in this tab only) until it is accepted or put off. */
  function holdInvitation(token) {
    store.setItem(PENDING, token);
  }

  /** Signed in with an invitation waiting: its page comes on screen. */
  function offerInvitation() {
    if (!store.getItem(PENDING)) return false;
    clearResults($('#invitation'));
    show('#invitation');
    return true;
  }

  $('#invitation-accept').addEventListener('click', () => {
    const token = store.getItem(PENDING);
    const region = $('#invitation-card');
    void whileBusy($('#invitation-accept'), 'Joining…', async () => {
      clearResults(region);
      if (!token) return show('#signed-in');
      try {
        const { data } = await auth.organizations.accept(token);
        store.removeItem(PENDING);
        show('#signed-in');
        await load();
        say(card, `You joined ${data.organization.name}.`, 'success');
      } catch (error) {
        // Another address (or one not verified yet) may still accept it: the token stays.
        if (error instanceof AuthError && error.code === 'INVALID_TOKEN') {
          store.removeItem(PENDING);
        }
        say(region, describe(error, 'invitation'));
      }
    });
  });

  $('#invitation-later').addEventListener('click', () => {
    store.removeItem(PENDING);
    show('#signed-in');
  });

  /** Signed out: the switcher and whatever was on screen go. */
  function reset() {
    organizations = [];
    me = null;
    closeManage();
    store.removeItem(ACTIVE);
    $('#org-switcher').hidden = true;
    $('#org-list').replaceChildren();
    clearForm($('#org-create-form'));
    clearForm($('#invite-form'));
  }

  return { load, reset, holdInvitation, offerInvitation };
}
