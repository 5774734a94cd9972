/** A slug: 3–48 of `a-z 0-9 -`, not starting or ending with `-`. */
export const SLUG_PATTERN = /^[a-z0-9](?:[a-z0-9-]{1,46})[a-z0-9]$/;

/**
 * The slug of a name left without one: lower-case letters and digits, accents dropped, any other
 * run of characters a `-`; padded to 3 with `-org` when shorter; cut to 48.
 */
export function slugFrom(name: string): string {
  const base = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 48)
    .replace(/-+$/, '');
  if (base.length >= 3) return base;
  return base ? `${base}-org` : 'org';
}
