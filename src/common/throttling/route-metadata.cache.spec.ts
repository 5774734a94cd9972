import { SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { RouteMetadataCache } from './route-metadata.cache';

const LIMIT = 'limit';
const SKIP = 'skip';

@SetMetadata(LIMIT, 'class')
class Controller {
  @SetMetadata(LIMIT, 'handler')
  tight(): void {}

  loose(): void {}

  @SetMetadata(SKIP, true)
  skipped(): void {}
}

/** Shares the handler functions, with a class limit of its own: answers are kept per class. */
@SetMetadata(LIMIT, 'subclass')
class Subclass extends Controller {}

describe('RouteMetadataCache', () => {
  const reflector = new Reflector();
  const reads = jest.spyOn(reflector, 'getAllAndOverride');
  const cache = new RouteMetadataCache(reflector);
  const { tight, loose, skipped } = Controller.prototype;

  beforeEach(() => reads.mockClear());

  it('answers as the reflector does, per handler, class and key', () => {
    const cases: Array<[string, [(...args: never[]) => unknown, object]]> = [
      [LIMIT, [tight, Controller]],
      [LIMIT, [loose, Controller]],
      [LIMIT, [loose, Subclass]],
      [SKIP, [skipped, Controller]],
      [SKIP, [tight, Controller]],
    ];
    const expected = ['handler', 'class', 'subclass', true, undefined];
    for (const round of [1, 2]) {
      const answers = cases.map(([key, targets]) => cache.getAllAndOverride(key, targets as never));
      expect({ round, answers }).toEqual({ round, answers: expected });
    }
  });

  it('reads the metadata once, then answers from memory', () => {
    const targets = [skipped, Controller] as never;
    cache.getAllAndOverride('fresh-key', targets);
    cache.getAllAndOverride('fresh-key', targets);
    cache.getAllAndOverride('fresh-key', targets);
    expect(reads).toHaveBeenCalledTimes(1);
  });

  it('leaves any other shape of targets to the reflector', () => {
    cache.getAllAndOverride(LIMIT, [tight] as never);
    cache.getAllAndOverride(LIMIT, [tight] as never);
    expect(reads).toHaveBeenCalledTimes(2);
  });
});
