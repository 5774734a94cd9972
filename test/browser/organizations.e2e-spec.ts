import * as jwt from 'jsonwebtoken';
import { BrowserContext, Page } from 'playwright-core';
import { uniqueUser } from '../support/auth-helpers';
import {
  AppTab,
  Harness,
  VIEWPORTS,
  axeViolations,
  logInThroughPage,
  openApp,
  placeOf,
  resultAfter,
  resultOf,
  startHarness,
  waitFor,
} from './harness';

/**
 * Issue 36 item 7: organizations in the example app, in Chromium against the real service. An
 * owner invites by email; the invited person opens the mailed link, signs in, accepts and
 * switches to the organization (their access token carries it); the owner removes them, and
 * their next refresh drops it. At a desktop's size and a phone's, axe clean throughout.
 */
describe('organizations in the example app in Chromium', () => {
  let h: Harness;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h?.close());
  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((context) => context.close()));
  });

  /** Registered and verified through the mailed link, as the invited account must be. */
  async function verified(prefix: string) {
    const credentials = uniqueUser(prefix);
    await h.t.http().post('/api/v1/auth/register').send(credentials).expect(201);
    await waitFor(() => h.sink.to(credentials.email).length > 0);
    const mail = h.sink.to(credentials.email).at(-1)!;
    await h.t.http().post('/api/v1/auth/verify-email').send({ token: mail.token }).expect(200);
    return credentials;
  }

  async function browserAt(viewport: { width: number; height: number }) {
    const context = await h.browser.newContext({ viewport });
    contexts.push(context);
    return context;
  }

  /** The claims of the access token this browser holds (its HttpOnly cookie). */
  async function accessClaims(context: BrowserContext) {
    const cookie = (await context.cookies(h.apiUrl)).find((c) => c.name === 'access_token');
    return jwt.decode(cookie!.value) as Record<string, unknown>;
  }

  const text = async (page: Page, selector: string) => (await page.textContent(selector))?.trim();

  const clean = (...tabs: AppTab[]) => {
    for (const tab of tabs)
      expect({ console: tab.consoleErrors, failed: tab.failures }).toEqual({
        console: [],
        failed: [],
      });
  };

  it.each(Object.entries(VIEWPORTS))(
    'invites by email, accepts from the mailed link, switches, removes, on a %s',
    async (_size, viewport) => {
      const owner = await verified('orgowner');
      const invitee = await verified('orgguest');
      const name = `Acme ${owner.username.slice(-6)}`;

      // The owner creates the organization and invites by email.
      const ownerContext = await browserAt(viewport);
      const ownerTab = await openApp(ownerContext, h.spa.url);
      const ownerPage = ownerTab.page;
      await logInThroughPage(ownerPage, owner);
      await ownerPage.waitForSelector('#org-list li');
      expect(await text(ownerPage, '#org-list')).toBe('You belong to no organization yet.');
      expect(await ownerPage.isVisible('#org-switcher')).toBe(true);

      const created = await resultAfter(ownerPage, 'organizations', async () => {
        await ownerPage.fill('#org-name', name);
        await ownerPage.click('#org-create-form [type=submit]');
      });
      expect(created).toBe(`${name} was created: you are its owner.`);
      expect(await text(ownerPage, '#org-manage-title')).toBe(`Members of ${name}`);
      expect(await text(ownerPage, `#member-list [data-member="${owner.email}"]`)).toContain(
        `${owner.username}, Owner`,
      );
      const orgId = await ownerPage.getAttribute('#org-list li', 'data-organization');
      expect(orgId).toMatch(/^org_/);

      const invited = await resultAfter(ownerPage, 'organizations', async () => {
        await ownerPage.fill('#invite-email', invitee.email);
        await ownerPage.selectOption('#invite-role', 'member');
        await ownerPage.click('#invite-form [type=submit]');
      });
      expect(invited).toBe(`We emailed an invitation to ${invitee.email}.`);
      expect(
        await text(ownerPage, `#invitation-list [data-invitation="${invitee.email}"]`),
      ).toMatch(new RegExp(`^${invitee.email.replace(/[.+]/g, '\\$&')} · Member, until `));
      expect(await axeViolations(ownerPage)).toEqual([]);

      // The invited person opens the mailed link, signed out: the login says why it is there.
      const invitations = () =>
        h.sink.to(invitee.email).filter((m) => m.link.includes('invitation='));
      await waitFor(() => invitations().length > 0);
      const link = new URL(invitations()[0].link);
      expect(`${link.origin}${link.pathname}`).toBe(`${h.spa.url}/accept-invitation`);
      const guestContext = await browserAt(viewport);
      const guestTab = await openApp(guestContext, h.spa.url, `${link.pathname}${link.search}`);
      const guestPage = guestTab.page;
      // The token leaves the address bar at once.
      expect(guestPage.url()).toBe(`${h.spa.url}/`);
      expect(await resultOf(guestPage, 'login-form')).toMatch(
        /^Log in to accept your invitation\./,
      );
      expect(await axeViolations(guestPage)).toEqual([]);

      // Signed in, the invitation's page comes first; accepting lists the organization.
      await guestPage.fill('#login-email', invitee.email);
      await guestPage.fill('#login-password', invitee.password);
      await guestPage.click('#login-form [type=submit]');
      await guestPage.waitForSelector('#invitation:not([hidden])');
      expect((await placeOf(guestPage, '#invitation-accept')).inView).toBe(true);
      expect(await axeViolations(guestPage)).toEqual([]);
      const joined = await resultAfter(guestPage, 'organizations', () =>
        guestPage.click('#invitation-accept'),
      );
      expect(joined).toBe(`You joined ${name}.`);
      expect(await text(guestPage, `#org-list [data-organization="${orgId}"]`)).toContain(
        `${name} · Member`,
      );

      // The switcher in the header: the session's access tokens carry the organization now.
      expect((await accessClaims(guestContext)).org_id).toBeUndefined();
      expect((await placeOf(guestPage, '#org-select')).box.top).toBeLessThan(viewport.height);
      await guestPage.selectOption('#org-select', orgId);
      await guestPage.waitForFunction(
        () => document.querySelector('#org-active')?.textContent === 'as member',
      );
      expect(await accessClaims(guestContext)).toMatchObject({ org_id: orgId, org_role: 'member' });
      // A reload keeps the choice on screen, and the session keeps it across a refresh.
      await guestPage.reload();
      await guestPage.waitForSelector('#signed-in:not([hidden]):not([aria-busy])');
      expect(await guestPage.inputValue('#org-select')).toBe(orgId);
      await guestPage.evaluate(() => (window as unknown as { auth: Refreshing }).auth.refresh());
      expect(await accessClaims(guestContext)).toMatchObject({ org_id: orgId, org_role: 'member' });
      expect(await axeViolations(guestPage)).toEqual([]);

      // The owner lists the members again and removes the invited one.
      await ownerPage.click(`#org-list [data-organization="${orgId}"] button`);
      await ownerPage.waitForSelector(`#member-list [data-member="${invitee.email}"]`);
      expect(
        await ownerPage.isHidden(`#invitation-list [data-invitation="${invitee.email}"]`),
      ).toBe(true);
      expect(await axeViolations(ownerPage)).toEqual([]);
      const removed = await resultAfter(ownerPage, 'organizations', () =>
        ownerPage.click(`[aria-label="Remove ${invitee.email}"]`),
      );
      expect(removed).toBe(`${invitee.email} is no longer a member.`);
      expect(await ownerPage.isHidden(`#member-list [data-member="${invitee.email}"]`)).toBe(true);

      // Their next refresh drops the organization; the page then lists none.
      await guestPage.evaluate(() => (window as unknown as { auth: Refreshing }).auth.refresh());
      const claims = await accessClaims(guestContext);
      expect([claims.org_id, claims.org_role]).toEqual([undefined, undefined]);
      await guestPage.reload();
      await guestPage.waitForSelector('#signed-in:not([hidden]):not([aria-busy])');
      expect(await text(guestPage, '#org-list')).toBe('You belong to no organization yet.');
      expect(await guestPage.inputValue('#org-select')).toBe('');
      expect(await axeViolations(guestPage)).toEqual([]);

      // The link again: the invitation was used, said in the app's words.
      const again = await openApp(guestContext, h.spa.url, `${link.pathname}${link.search}`);
      await again.page.waitForSelector('#invitation:not([hidden])');
      const used = await resultAfter(again.page, 'invitation-card', () =>
        again.page.click('#invitation-accept'),
      );
      expect(used).toBe('This invitation was already accepted.');
      // Refused as a link, not as the session: still signed in, no refresh tried for it.
      expect(again.refreshes.count).toBe(0);
      expect(again.failures).toEqual([expect.stringMatching(/^401 .*\/invitations\/accept$/)]);
      // The browser prints that refusal in its console, as it does every 4xx.
      expect(again.consoleErrors).toEqual([expect.stringContaining('status of 401')]);
      again.failures.length = 0;
      again.consoleErrors.length = 0;
      clean(ownerTab, guestTab, again);
    },
  );
});

type Refreshing = { refresh(): Promise<unknown> };
