import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../src/config/env.reader';
import { createApp } from '../src/app.factory';

describe('boot', () => {
  it('rejects bad configuration before anything starts', async () => {
    await expect(
      createApp({ isolated: true, logger: false, env: { PORT: '99999' } }),
    ).rejects.toThrow(ConfigError);
  });

  it('stops the real process with exit 1 and one line naming the variable', () => {
    const cwd = mkdtempSync(join(tmpdir(), 'auth-boot-'));
    try {
      const result = spawnSync(
        process.execPath,
        [
          '-r',
          require.resolve('ts-node/register/transpile-only'),
          join(__dirname, '../src/main.ts'),
        ],
        {
          cwd,
          env: {
            PATH: process.env.PATH,
            NODE_ENV: 'production',
            TS_NODE_PROJECT: join(__dirname, '../tsconfig.json'),
          },
          encoding: 'utf8',
          timeout: 60_000,
        },
      );
      expect(result.status).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toBe(
        'Invalid configuration: JWT_ACCESS_SECRET is required when NODE_ENV=production\n',
      );
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});
