import { randomBytes } from 'node:crypto';

/** An organization's roles, the strongest first: each can do what the ones after it can. */
export const ORG_ROLES = ['owner', 'admin', 'member'] as const;
export type OrgRoleName = (typeof ORG_ROLES)[number];

/** `held` is `needed` or stronger. */
export function atLeast(held: OrgRoleName, needed: OrgRoleName): boolean {
  return ORG_ROLES.indexOf(held) <= ORG_ROLES.indexOf(needed);
}

/** `prefix` and 18 random digits, as user ids are: not guessable from another. */
export function newId(prefix: 'org' | 'inv'): string {
  const value = randomBytes(8).readBigUInt64BE() % 10n ** 18n;
  return `${prefix}_${value.toString().padStart(18, '0')}`;
}
