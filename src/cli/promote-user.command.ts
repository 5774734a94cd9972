import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AuditModule } from '../audit/audit.module';
import { DomainEvents } from '../events/domain-events.service';
import { EventsModule } from '../events/events.module';
import { ConfigSectionsModule } from '../config/config.module';
import { ConfigError } from '../config/env.reader';
import { DatabaseModule } from '../database/database.module';
import { Database } from '../database/database.service';
import { RedisModule } from '../redis/redis.module';
import { RedisService } from '../redis/redis.service';
import { UserDirectory } from '../users/user-directory.service';
import { UsersModule } from '../users/users.module';

/** How long the command waits for Redis before changing the role without telling the caches. */
const REDIS_WAIT_MS = 3000;

/** Only what promoting needs: the validated configuration, the database, users, the audit trail. */
@Module({
  imports: [
    ConfigSectionsModule,
    DatabaseModule,
    RedisModule,
    UsersModule,
    EventsModule,
    AuditModule,
  ],
})
class PromoteUserModule {}

class UsageError extends Error {}

/**
 * `npm run users:promote -- EMAIL`: makes the account with this email an administrator. The
 * first administrator cannot be made through the API, by design. The configuration is the
 * service's own (`.env` and the environment, validated the same way), so without DATABASE_URL
 * it is the embedded SQLite store under ./data, as for `npm start`, which it may change while
 * the service runs (the file is shared by processes). With REDIS_URL, the user's generation is
 * bumped, so running instances see the new role at the next token check; without it, a running
 * instance sees it within USER_CACHE_TTL.
 */
async function main(args: string[]): Promise<string> {
  const email = args[0]?.trim();
  if (!email || args.length > 1) throw new UsageError('Usage: npm run users:promote -- EMAIL');
  // abortOnError off: Nest would otherwise exit silently (its logger is off) on a bad variable.
  const app = await NestFactory.createApplicationContext(PromoteUserModule, {
    logger: false,
    abortOnError: false,
  });
  try {
    const directory = app.get(UserDirectory);
    const user = await directory.findByEmail(email);
    if (!user) throw new UsageError(`No account has the email ${email}`);
    if (user.role === 'admin') return `${user.email} (${user.id}) is already an admin`;
    await redisReady(app.get(RedisService));
    const events = app.get(DomainEvents);
    await app.get(Database).transaction(async (manager) => {
      const promoted = (await directory.setRoleIn(manager, user.id, 'admin')) ?? user;
      // No actor: the operator acted, outside the API.
      await events.publish(manager, {
        type: 'user.updated',
        data: { user: promoted, changes: ['role'] },
      });
    });
    // Promoting does not enable: that stays an administrator's decision, and is on record.
    const disabled = user.disabledAt ? ' (the account is disabled: enable it to log in)' : '';
    return `${user.email} (${user.id}) is now an admin${disabled}`;
  } finally {
    await app.close();
  }
}

/** The bump is written only while Redis answers; a moment after start it may not yet. */
async function redisReady(redis: RedisService): Promise<void> {
  if (!redis.enabled) return;
  const deadline = Date.now() + REDIS_WAIT_MS;
  while (!redis.ready && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  if (!redis.ready) {
    process.stderr.write(
      'Redis did not answer: running instances may serve the old role until USER_CACHE_TTL passes.\n',
    );
  }
}

main(process.argv.slice(2)).then(
  (line) => {
    process.stdout.write(`${line}\n`);
    process.exit(0);
  },
  (error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    const known = error instanceof UsageError || error instanceof ConfigError;
    process.stderr.write(`${known ? message : `Cannot promote: ${message}`}\n`);
    process.exit(1);
  },
);
