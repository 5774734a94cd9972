import { threadId } from 'node:worker_threads';
import { AppException } from '../../common/errors/app.exception';
import { SecurityConfig } from '../../config/config.sections';
import { PasswordHasher } from './password-hasher.service';

function hasher(overrides: Partial<SecurityConfig> = {}): PasswordHasher {
  return new PasswordHasher({
    bcryptCost: 4,
    passwordMinLength: 6,
    hashThreads: 2,
    hashQueueLimit: 64,
    userCacheTtl: 0,
    accountEnumerationProtection: false,
    ...overrides,
  });
}

describe('PasswordHasher', () => {
  const subject = hasher();
  beforeAll(() => subject.onModuleInit());
  afterAll(() => subject.onApplicationShutdown());

  it('hashes at the configured cost and verifies', async () => {
    const hash = await subject.hash('secret-pass');
    expect(hash).toMatch(/^\$2[aby]\$04\$.{53}$/);
    await expect(subject.verify('secret-pass', hash)).resolves.toBe(true);
    await expect(subject.verify('secret-pasS', hash)).resolves.toBe(false);
  });

  it('runs bcrypt on a worker thread, never on the event loop', async () => {
    const worker = await subject.workerThreadId();
    expect(worker).not.toBe(threadId);
    expect(worker).toBeGreaterThan(0);
  });

  it('runs a full comparison for an unknown account, and answers false', async () => {
    const pool = (subject as unknown as { pool: { completed: number } }).pool;
    const before = pool.completed;
    await expect(subject.verify('anything', undefined)).resolves.toBe(false);
    expect(pool.completed).toBe(before + 1);
  });

  it('refuses a password longer than 72 bytes even when bcrypt would match its prefix', async () => {
    const hash = await subject.hash('x'.repeat(72));
    await expect(subject.verify('x'.repeat(72), hash)).resolves.toBe(true);
    await expect(subject.verify(`${'x'.repeat(72)}tail`, hash)).resolves.toBe(false);
  });
});

describe('PasswordHasher with a full queue', () => {
  const small = hasher({ bcryptCost: 10, hashThreads: 1, hashQueueLimit: 2 });
  afterAll(() => small.onApplicationShutdown());

  it('refuses at once with 503 SERVICE_UNAVAILABLE and Retry-After instead of queueing', async () => {
    const outcomes = await Promise.allSettled(
      Array.from({ length: 8 }, () => small.hash('queued-password')),
    );
    const refused = outcomes.filter((outcome) => outcome.status === 'rejected');
    const done = outcomes.filter((outcome) => outcome.status === 'fulfilled');
    expect(done.length).toBeGreaterThanOrEqual(1);
    expect(done.length).toBeLessThanOrEqual(3);
    expect(refused.length).toBe(8 - done.length);
    for (const outcome of refused) {
      const error = outcome.reason as AppException;
      expect(error).toBeInstanceOf(AppException);
      expect(error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503, retryAfter: 1 });
    }
  });
});
