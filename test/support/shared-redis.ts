import { LoggerService } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { RedisService } from '../../src/redis/redis.service';
import { TcpProxy } from './tcp-proxy';
import { TestApp } from './test-app';

/** The machine's Redis (TEST_REDIS_URL), reached through a proxy each suite owns. */
export const REDIS_SERVER = new URL(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379');

export async function redisProxy(): Promise<TcpProxy> {
  return new TcpProxy(REDIS_SERVER.hostname, Number(REDIS_SERVER.port || 6379)).start();
}

/** A key prefix of the suite's own, so suites and runs never see each other's counters. */
export function uniquePrefix(): string {
  return `auth-test-${process.pid}-${randomBytes(4).toString('hex')}:`;
}

/** Deletes what a suite left under its prefix (counters expire anyway). */
export async function dropKeys(prefix: string): Promise<void> {
  const redis = new Redis(REDIS_SERVER.toString(), { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  try {
    for (let cursor = '0'; ;) {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      if (keys.length > 0) await redis.del(...keys);
      if (next === '0') break;
      cursor = next;
    }
  } finally {
    redis.disconnect();
  }
}

export function redisOf(t: TestApp): RedisService {
  return t.app.get(RedisService);
}

/** Every line the instances log, to count what an outage printed. */
export class CapturedLog implements LoggerService {
  readonly lines: string[] = [];
  log(message: unknown, context?: string): void {
    this.lines.push(`${context ?? ''}: ${String(message)} @${Date.now() % 100000}`);
  }
  warn(message: unknown, context?: string): void {
    this.log(message, context);
  }
  error(message: unknown, context?: string): void {
    this.log(message, context);
  }
  matching(fragment: string): string[] {
    return this.lines.filter((line) => line.includes(fragment));
  }
}

export async function eventually(
  condition: () => boolean | Promise<boolean>,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
