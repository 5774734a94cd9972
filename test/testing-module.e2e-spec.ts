import { INestApplication } from '@nestjs/common';
import { MailerService } from '@nestjs-modules/mailer';
import { Test } from '@nestjs/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { createTestingApp } from '../src/app.factory';
import { AppModule } from '../src/app.module';
import { ConfigSource } from '../src/config/config-source';
import { cookiesOf } from './support/auth-helpers';
import { TestDatabase, createTestDatabase } from './support/test-database';
import { HTTP_PLATFORM } from './support/test-app';

/**
 * The integration test of docs/extending.md, as a team would write it: the whole service from
 * `Test.createTestingModule({ imports: [AppModule] })`, its configuration and its mailer replaced
 * with `overrideProvider`, on the platform HTTP_PLATFORM names (CI runs it on both).
 */
describe('the service in a team’s own testing module', () => {
  let database: TestDatabase;
  let dataDir: string;
  let app: INestApplication;
  const sent: Array<Record<string, unknown>> = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    dataDir = mkdtempSync(join(tmpdir(), 'auth-testing-module-'));
    const moduleRef = await Test.createTestingModule({ imports: [AppModule] })
      .overrideProvider(ConfigSource)
      .useValue(
        ConfigSource.isolated({
          HTTP_PLATFORM,
          DATABASE_URL: database.url,
          DATA_DIR: dataDir,
          BCRYPT_COST: '4',
          LOG_LEVEL: 'silent',
        }),
      )
      .overrideProvider(MailerService)
      .useValue({
        sendMail: (mail: Record<string, unknown>) => {
          sent.push(mail);
          return Promise.resolve({ accepted: [mail.to] });
        },
      })
      .compile();
    app = await createTestingApp(moduleRef);
  });

  afterAll(async () => {
    await app?.close();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('runs on the platform the configuration names', () => {
    expect(app.getHttpAdapter().getType()).toBe(HTTP_PLATFORM);
  });

  it('registers through the replaced mailer, verifies with the mailed token and logs in', async () => {
    const http = () => request(app.getHttpServer());
    await http()
      .post('/api/v1/auth/register')
      .send({ email: 'team@example.com', password: 'team-secret', username: 'team' })
      .expect(201);

    // The mail went to the replacement, not to SMTP or the outbox.
    expect(sent).toHaveLength(1);
    expect(JSON.stringify(sent[0].to)).toContain('team@example.com');
    const token = /[?&]token=([\w-]+)/.exec(JSON.stringify(sent[0]))?.[1];
    expect(token).toBeDefined();

    const verified = await http().post('/api/v1/auth/verify-email').send({ token }).expect(200);
    expect(verified.body.data.user.email_verified).toBe(true);

    const login = await http()
      .post('/api/v1/auth/login')
      .send({ email: 'team@example.com', password: 'team-secret' })
      .expect(200);
    const cookies = cookiesOf(login);
    expect(cookies.access_token.raw).toMatch(/HttpOnly/);
    const me = await http()
      .get('/api/v1/users/me')
      .set('Authorization', `Bearer ${cookies.access_token.value}`)
      .expect(200);
    expect(me.body.data.user.username).toBe('team');
  });

  it('refuses to start an app built without the platform kit, rather than serve it wrongly', async () => {
    const plain = (
      await Test.createTestingModule({ imports: [AppModule] })
        .overrideProvider(ConfigSource)
        .useValue(ConfigSource.isolated({ DATABASE_URL: 'sqlite::memory:', DATA_DIR: dataDir }))
        .compile()
    ).createNestApplication({ logger: false });
    await expect(plain.init()).rejects.toThrow(/createTestingApp\(moduleRef\)/);
    await plain.close();
  });
});
