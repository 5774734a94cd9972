import { RefreshSession } from '../src/sessions/refresh-session.entity';
import { SessionJanitor } from '../src/sessions/session-janitor.service';
import { TokenJanitor } from '../src/tokens/token-janitor.service';
import { VerificationToken } from '../src/tokens/verification-token.entity';
import {
  cookiesOf,
  expectError,
  login,
  refreshWith,
  registerAndLogin,
} from './support/auth-helpers';
import { TestApp, startTestApp } from './support/test-app';

describe('purging dead tokens', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ REFRESH_REUSE_GRACE: '0' });
  });
  afterAll(() => t.close());

  const sessions = () => t.dataSource.getRepository(RefreshSession);
  const emailed = () => t.dataSource.getRepository(VerificationToken);

  it('deletes expired and revoked sessions and stale emailed tokens, keeps what still matters', async () => {
    const kept = await registerAndLogin(t);
    const rotatedAway = await refreshWith(t, kept.refresh).expect(200);
    const loggedOut = await registerAndLogin(t);
    await t
      .http()
      .post('/api/v1/auth/logout')
      .set('Authorization', `Bearer ${loggedOut.access}`)
      .expect(200);
    await login(t, kept.credentials);
    // Age the second login's session and every emailed token of one user past their expiry.
    const keptFamily = (
      JSON.parse(Buffer.from(kept.refresh.split('.')[1], 'base64url').toString()) as { fam: string }
    ).fam;
    const expiringRow = (await sessions().findBy({ userId: kept.user.id })).find(
      (row) => row.familyId !== keptFamily,
    )!;
    await sessions().update({ id: expiringRow.id }, { expiresAt: new Date(Date.now() - 1000) });
    // Ended emailed tokens stay a week, so a link opened late is told what became of it.
    const DAY_MS = 24 * 3600_000;
    await emailed().update(
      { userId: loggedOut.user.id },
      { expiresAt: new Date(Date.now() - 7 * DAY_MS - 60_000) },
    );
    await emailed().update({ userId: kept.user.id }, { expiresAt: new Date(Date.now() - 60_000) });

    const removed =
      (await t.app.get(SessionJanitor).purge()) + (await t.app.get(TokenJanitor).purge());
    expect(removed).toBeGreaterThanOrEqual(3);

    const left = await sessions().find();
    expect(left.some((row) => row.userId === loggedOut.user.id)).toBe(false);
    expect(left.some((row) => row.id === expiringRow.id)).toBe(false);
    // The rotated-away token's row stays: presenting it again must still count as reuse.
    expect(left.some((row) => row.userId === kept.user.id && row.rotatedAt !== null)).toBe(true);
    expect(await emailed().countBy({ userId: loggedOut.user.id })).toBe(0);
    expect(await emailed().countBy({ userId: kept.user.id })).toBe(1);

    await new Promise((resolve) => setTimeout(resolve, 20));
    expectError(await refreshWith(t, kept.refresh), 401, 'INVALID_TOKEN');
    // Reuse was detected, not merely "unknown token": the whole family is revoked now.
    const family = await sessions().findBy({ familyId: keptFamily });
    expect(family).toHaveLength(2);
    expect(family.every((row) => row.revokedAt !== null)).toBe(true);
    const successor = /refresh_token=([^;]+)/.exec(String(rotatedAway.headers['set-cookie']))![1];
    expectError(await refreshWith(t, successor), 401, 'INVALID_TOKEN');
  });

  it('forgets rotated sessions soon after the grace window, and still treats a late copy as theft', async () => {
    const victim = await registerAndLogin(t);
    const otherDevice = await login(t, victim.credentials);
    const successor = cookiesOf(await refreshWith(t, victim.refresh).expect(200)).refresh_token
      .value;
    const family = familyOf(victim.refresh);
    expect(await sessions().countBy({ familyId: family })).toBe(2);

    const janitor = t.app.get(SessionJanitor);
    // Within the grace window (0 s here) and its 10 s margin the rotated row stays.
    expect(await janitor.purgeRetired(new Date(Date.now() + 5_000))).toBe(0);
    expect(await janitor.purgeRetired(new Date(Date.now() + 11_000))).toBeGreaterThanOrEqual(1);
    const left = await sessions().findBy({ familyId: family });
    expect(left).toHaveLength(1);
    expect(left[0].rotatedAt).toBeNull();

    expectError(await refreshWith(t, victim.refresh), 401, 'INVALID_TOKEN');
    expect((await sessions().findOneByOrFail({ familyId: family })).revokedAt).not.toBeNull();
    expectError(await refreshWith(t, successor), 401, 'INVALID_TOKEN');
    // Only the stolen family: the user's other device keeps its session.
    await refreshWith(t, otherDevice.refresh).expect(200);
  });

  it('answers a token newer than anything stored (a lost last second) as invalid, not theft', async () => {
    const user = await registerAndLogin(t);
    const successor = cookiesOf(await refreshWith(t, user.refresh).expect(200)).refresh_token.value;
    const family = familyOf(user.refresh);
    // As after a crash that lost the rotation: the successor's row is gone, its predecessor is
    // live again, and was issued before the successor.
    const rows = await sessions().findBy({ familyId: family });
    const stored = rows.find((row) => row.rotatedAt !== null)!;
    await sessions().delete({ id: rows.find((row) => row.rotatedAt === null)!.id });
    await sessions().update(
      { id: stored.id },
      { rotatedAt: null, createdAt: new Date(Date.now() - 60_000) },
    );

    expectError(await refreshWith(t, successor), 401, 'INVALID_TOKEN');
    expect((await sessions().findOneByOrFail({ id: stored.id })).revokedAt).toBeNull();
    await refreshWith(t, user.refresh).expect(200);
  });

  it('answers a token whose whole family is gone as invalid, touching nothing else', async () => {
    const user = await registerAndLogin(t);
    const otherDevice = await login(t, user.credentials);
    await sessions().delete({ familyId: familyOf(user.refresh) });

    expectError(await refreshWith(t, user.refresh), 401, 'INVALID_TOKEN');
    const others = await sessions().findBy({ familyId: familyOf(otherDevice.refresh) });
    expect(others.every((row) => row.revokedAt === null)).toBe(true);
    await refreshWith(t, otherDevice.refresh).expect(200);
  });
});

function familyOf(refreshToken: string): string {
  const payload = Buffer.from(refreshToken.split('.')[1], 'base64url').toString();
  return (JSON.parse(payload) as { fam: string }).fam;
}
