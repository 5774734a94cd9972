import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import Sqlite from 'better-sqlite3';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../src/config/env.reader';
import { HTTP_PLATFORM, buildApp } from './support/test-app';
import { serviceArgs } from './support/service-build';

describe('boot', () => {
  it('rejects bad configuration before anything starts', async () => {
    await expect(buildApp({ PORT: '99999' })).rejects.toThrow(ConfigError);
  });

  it('stops the real process with exit 1 and one line naming every bad variable', () => {
    const cwd = mkdtempSync(join(tmpdir(), 'auth-boot-'));
    try {
      const result = spawnSync(process.execPath, serviceArgs('main'), {
        cwd,
        env: {
          PATH: process.env.PATH,
          NODE_ENV: 'production',
          // Read first, to pick the platform: a bad value must not hide the others.
          HTTP_PLATFORM: 'koa',
          TS_NODE_PROJECT: join(__dirname, '../tsconfig.json'),
        },
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(result.status).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toBe(
        'Invalid configuration: JWT_ACCESS_SECRET is required when NODE_ENV=production; ' +
          'JWT_REFRESH_SECRET is required when NODE_ENV=production; ' +
          'HTTP_PLATFORM must be one of express, fastify (got "koa"); ' +
          'SMTP_URL is required when NODE_ENV=production (or set MAIL_OUTBOX_DIR to keep mail in files); ' +
          'MFA_ENCRYPTION_KEY is required when NODE_ENV=production\n',
      );
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });

  it('takes any free port with PORT=0 and logs the port it obtained', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'auth-port0-'));
    const child = spawn(process.execPath, serviceArgs('main'), {
      cwd,
      env: {
        PATH: process.env.PATH,
        PORT: '0',
        HOST: '127.0.0.1',
        HTTP_PLATFORM,
        DATABASE_URL: 'sqlite::memory:',
        TS_NODE_PROJECT: join(__dirname, '../tsconfig.json'),
      },
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    try {
      const port = await new Promise<number>((resolve, reject) => {
        const pattern = new RegExp(
          `Listening on http://localhost:(\\d+)/api/v1 \\(port (\\d+), ${HTTP_PLATFORM}\\)`,
        );
        child.stdout.on('data', () => {
          const found = pattern.exec(output);
          if (found && found[1] === found[2]) resolve(Number(found[2]));
        });
        child.once('exit', (code) => reject(new Error(`exited with ${code}: ${output}`)));
      });
      expect(port).toBeGreaterThan(0);
      const health = await fetch(`http://127.0.0.1:${port}/api/v1/health`);
      expect(health.status).toBe(200);
    } finally {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(cwd, { recursive: true, force: true });
    }
  }, 60_000);

  it('keeps the embedded SQLite file readable by its owner only, and reopens it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'auth-sqlite-'));
    const env = {
      DATABASE_URL: `sqlite:${join(dir, 'auth.sqlite')}`,
      DATA_DIR: dir,
      BCRYPT_COST: '4',
    };
    try {
      const first = await buildApp(env);
      await request(first.getHttpServer())
        .post('/api/v1/auth/register')
        .send({ email: 'file@example.com', password: 'secret-pass', username: 'file' })
        .expect(201);
      await first.close();
      expect(statSync(join(dir, 'auth.sqlite')).mode & 0o777).toBe(0o600);

      const second = await buildApp(env);
      await request(second.getHttpServer())
        .post('/api/v1/auth/login')
        .send({ email: 'file@example.com', password: 'secret-pass' })
        .expect(200);
      await second.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.each([
    [{}, 1],
    [{ DATABASE_SYNC: 'full' }, 2],
  ])(
    'syncs the embedded file as DATABASE_SYNC says (%j: synchronous=%i)',
    async (setting, synchronous) => {
      const dir = mkdtempSync(join(tmpdir(), 'auth-sync-'));
      const app = await buildApp({
        DATABASE_URL: `sqlite:${join(dir, 'auth.sqlite')}`,
        DATA_DIR: dir,
        ...setting,
      });
      try {
        // 1 is NORMAL (synced at checkpoints), 2 is FULL (synced at every commit).
        expect(await app.get(DataSource).query('PRAGMA synchronous')).toEqual([{ synchronous }]);
      } finally {
        await app.close();
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  it('has a logout on disk before answering it (a crash right after cannot undo it)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'auth-durable-'));
    const file = join(dir, 'auth.sqlite');
    const app = await buildApp({ DATABASE_URL: `sqlite:${file}`, DATA_DIR: dir, BCRYPT_COST: '4' });
    try {
      const http = () => request(app.getHttpServer());
      await http()
        .post('/api/v1/auth/register')
        .send({ email: 'durable@example.com', password: 'secret-pass', username: 'durable' })
        .expect(201);
      const login = await http()
        .post('/api/v1/auth/login')
        .set('X-Token-Delivery', 'body')
        .send({ email: 'durable@example.com', password: 'secret-pass' })
        .expect(200);
      await http()
        .post('/api/v1/auth/logout')
        .set('Authorization', `Bearer ${login.body.access_token}`)
        .expect(200);
      // Read by another connection, as a process started after a crash would read it.
      const db = new Sqlite(file, { readonly: true });
      const version = db
        .prepare("SELECT token_version AS v FROM users WHERE username = 'durable'")
        .get() as { v: number };
      const live = db
        .prepare('SELECT COUNT(*) AS n FROM refresh_sessions WHERE revoked_at IS NULL')
        .get() as { n: number };
      db.close();
      expect(version.v).toBe(1);
      expect(live.n).toBe(0);
    } finally {
      await app.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
