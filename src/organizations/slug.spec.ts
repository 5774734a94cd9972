import { atLeast } from './org-roles';
import { SLUG_PATTERN, slugFrom } from './slug';

describe('slugFrom', () => {
  it.each([
    ['Acme', 'acme'],
    ['  Ünïted Wídgets & Co  ', 'united-widgets-co'],
    ['A', 'a-org'],
    ['日本', 'org'],
    ['x'.repeat(60), 'x'.repeat(48)],
    [`${'a'.repeat(47)} b`, 'a'.repeat(47)],
  ])('derives %j as %j, a slug the pattern accepts', (name, slug) => {
    expect(slugFrom(name)).toBe(slug);
    expect(SLUG_PATTERN.test(slugFrom(name))).toBe(true);
  });

  it('refuses what a slug cannot be', () => {
    for (const bad of ['ab', '-abc', 'abc-', 'A-b-c', 'a_bc', 'x'.repeat(49)]) {
      expect(SLUG_PATTERN.test(bad)).toBe(false);
    }
  });
});

describe('atLeast', () => {
  it('orders owner over admin over member', () => {
    expect(atLeast('owner', 'admin')).toBe(true);
    expect(atLeast('admin', 'admin')).toBe(true);
    expect(atLeast('member', 'admin')).toBe(false);
    expect(atLeast('admin', 'owner')).toBe(false);
  });
});
