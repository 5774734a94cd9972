import { SERVICE_ERROR_CODES } from '../../../client/src/types';
import { ERROR_CATALOGUE, RETRY_AFTER_SECONDS } from './error-codes';

describe('the error-code catalogue', () => {
  it('is what the client SDK types its errors with, code for code', () => {
    expect([...SERVICE_ERROR_CODES].sort()).toEqual(Object.keys(ERROR_CATALOGUE).sort());
  });

  it('tells every 503 when to try again: each is an outage that passes', () => {
    const unavailable = Object.entries(ERROR_CATALOGUE)
      .filter(([, entry]) => entry.status === 503)
      .map(([code]) => code);
    expect(unavailable.sort()).toEqual([
      'EMAIL_SERVICE_ERROR',
      'HOOK_UNAVAILABLE',
      'SERVICE_UNAVAILABLE',
    ]);
    for (const code of unavailable) {
      expect(RETRY_AFTER_SECONDS[code as keyof typeof ERROR_CATALOGUE]).toBeGreaterThan(0);
    }
  });
});
