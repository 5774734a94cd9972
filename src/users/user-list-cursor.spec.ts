import { decodeCursor, encodeCursor } from './user-list-cursor';

describe('the listing cursor', () => {
  it('gives back the position it was made from, to the millisecond', () => {
    const position = {
      createdAt: new Date('2026-11-27T15:18:55.119Z'),
      id: 'user_448588032524832570',
    };
    const cursor = encodeCursor(position);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(cursor)).toEqual(position);
  });

  it('refuses anything it did not write', () => {
    const forged = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    for (const cursor of [
      '',
      'abc',
      '!!!!',
      'A'.repeat(129),
      forged({ t: 1, id: 'user_1' }),
      forged([1, 'user_1', 3]),
      forged(['1', 'user_1']),
      forged([1.5, 'user_1']),
      forged([9e15, 'user_1']),
      forged([1, '']),
      forged([1, 'user 1']),
      forged([1, "user_1' OR 1=1"]),
      forged([1, 'u'.repeat(33)]),
      Buffer.from('[1,"user_1"').toString('base64url'),
    ]) {
      expect({ cursor, position: decodeCursor(cursor) }).toEqual({ cursor, position: undefined });
    }
  });
});
