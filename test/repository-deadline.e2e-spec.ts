import { Controller, Get, Module, Param, Post } from '@nestjs/common';
import { InjectRepository, TypeOrmModule } from '@nestjs/typeorm';
import { DataSource, Repository } from 'typeorm';
import { Public } from '../src/auth/decorators/public.decorator';
import { ok } from '../src/common/http/envelope';
import { User } from '../src/users/user.entity';
import { expectError, registerUser, uniqueUser } from './support/auth-helpers';
import { eventually } from './support/shared-redis';
import { TcpProxy } from './support/tcp-proxy';
import { TestApp, startTestApp } from './support/test-app';
import { TestDatabase, createTestDatabase } from './support/test-database';

/** DATABASE_TIMEOUT_MS's default: every database call gives up after it. */
const DEADLINE_MS = 2000;
/** How much later than the deadline an answer may come (the contract's allowance). */
const SLACK_MS = 500;

/** A team's routes using TypeORM the Nest way, with none of Database's ceremony. */
@Controller('team/users')
class TeamUsersController {
  constructor(
    @InjectRepository(User) private readonly users: Repository<User>,
    private readonly dataSource: DataSource,
  ) {}

  @Get(':email')
  @Public()
  async find(@Param('email') email: string) {
    const user = await this.users.findOneBy({ emailNormalized: email });
    return ok('Looked up', { found: user !== null });
  }

  @Post(':email/rename')
  @Public()
  async rename(@Param('email') email: string) {
    await this.dataSource.transaction(async (manager) => {
      const rows = manager.getRepository(User);
      const user = await rows.findOneByOrFail({ emailNormalized: email });
      await rows.update({ id: user.id }, { name: 'renamed' });
    });
    return ok('Renamed');
  }
}

@Module({ imports: [TypeOrmModule.forFeature([User])], controllers: [TeamUsersController] })
class TeamUsersModule {}

/**
 * A repository injected and used directly gets Database's deadline and fail-fast: on a frozen
 * MariaDB (open connections going silent, through a proxy this suite owns in front of its own
 * database) it answers 503 in the envelope within DATABASE_TIMEOUT_MS, then at once while the
 * server is known not to answer, and serves again once it does. Runs in the MariaDB pass.
 */
describe('a plain repository call on a frozen database', () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  let t: TestApp;

  beforeAll(async () => {
    database = await createTestDatabase();
    if (database.kind !== 'mysql') throw new Error('This suite needs MariaDB (TEST_DATABASE_URL)');
    const direct = new URL(database.url);
    proxy = await new TcpProxy(direct.hostname, Number(direct.port || 3306)).start();
    const proxied = new URL(database.url);
    proxied.hostname = '127.0.0.1';
    proxied.port = String(proxy.port);
    t = await startTestApp(
      {},
      { database: { ...database, url: proxied.toString() }, imports: [TeamUsersModule] },
    );
  });

  afterAll(async () => {
    await t?.close();
    await proxy?.stop();
    await database?.drop();
  });

  const isReady = async () => (await t.http().get('/api/v1/health/ready')).status === 200;

  it.each([
    ['a read (findOneBy)', (email: string) => t.http().get(`/api/v1/team/users/${email}`)],
    [
      'a transaction (dataSource.transaction)',
      (email: string) => t.http().post(`/api/v1/team/users/${email}/rename`),
    ],
  ])(
    '%s answers 503 within the deadline, then at once, and serves again after',
    async (_, call) => {
      const user = uniqueUser('plain');
      await registerUser(t, user);
      const email = user.email.toLowerCase();
      await eventually(isReady, 5000);
      const before = await call(email);
      expect(before.status).toBeLessThan(300);

      proxy.freeze();
      try {
        const started = Date.now();
        const frozen = await call(email);
        const elapsed = Date.now() - started;
        expectError(frozen, 503, 'SERVICE_UNAVAILABLE');
        expect(frozen.body.message).toBe('The database did not answer in time, try again later');
        // It waited for the deadline, not longer.
        expect(elapsed).toBeGreaterThanOrEqual(DEADLINE_MS - 50);
        expect(elapsed).toBeLessThan(DEADLINE_MS + SLACK_MS);

        // The missed deadline had the server probed: once it is known not to answer, the next call
        // is refused without waiting.
        await eventually(async () => !(await isReady()), 2000);
        const refusedAt = Date.now();
        expectError(await call(email), 503, 'SERVICE_UNAVAILABLE');
        expect(Date.now() - refusedAt).toBeLessThan(SLACK_MS);
      } finally {
        proxy.thaw();
      }

      await eventually(isReady, 5000);
      const after = await call(email);
      expect(after.status).toBeLessThan(300);
      expect(after.body.success).toBe(true);
    },
  );
});
