import { SERVICE_ERROR_CODES } from '../../../client/src/types';
import { ERROR_CATALOGUE } from './error-codes';

describe('the error-code catalogue', () => {
  it('is what the client SDK types its errors with, code for code', () => {
    expect([...SERVICE_ERROR_CODES].sort()).toEqual(Object.keys(ERROR_CATALOGUE).sort());
  });
});
