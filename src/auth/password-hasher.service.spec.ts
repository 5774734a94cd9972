import * as bcrypt from 'bcryptjs';
import { PasswordHasher } from './password-hasher.service';

// The real bcryptjs, with `compare` observable.
jest.mock('bcryptjs', () => {
  const actual = jest.requireActual<typeof bcrypt>('bcryptjs');
  return { ...actual, compare: jest.fn((s: string, h: string) => actual.compare(s, h)) };
});

describe('PasswordHasher', () => {
  const hasher = new PasswordHasher({ bcryptCost: 4, passwordMinLength: 6 });
  beforeAll(() => hasher.onModuleInit());

  it('hashes at the configured cost and verifies', async () => {
    const hash = await hasher.hash('secret-pass');
    expect(hash).toMatch(/^\$2[aby]\$04\$/);
    await expect(hasher.verify('secret-pass', hash)).resolves.toBe(true);
    await expect(hasher.verify('secret-pasS', hash)).resolves.toBe(false);
  });

  it('runs a full bcrypt comparison for an unknown account, and answers false', async () => {
    const compare = jest.mocked(bcrypt.compare);
    compare.mockClear();
    await expect(hasher.verify('anything', undefined)).resolves.toBe(false);
    expect(compare).toHaveBeenCalledTimes(1);
    expect(compare).toHaveBeenCalledWith(
      'anything',
      expect.stringMatching(/^\$2[aby]\$04\$.{53}$/),
    );
  });

  it('refuses a password longer than 72 bytes even when bcrypt would match its prefix', async () => {
    const hash = await hasher.hash('x'.repeat(72));
    await expect(bcrypt.compare(`${'x'.repeat(72)}tail`, hash)).resolves.toBe(true);
    await expect(hasher.verify(`${'x'.repeat(72)}tail`, hash)).resolves.toBe(false);
  });
});
