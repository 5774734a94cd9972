import { AppException } from '../common/errors/app.exception';

/** Why an emailed link was refused, as `details[0].reason` says it. */
export const LINK_REFUSAL_REASONS = [
  'expired',
  'replaced',
  'used',
  'verified',
  'withdrawn',
] as const;
export type LinkRefusalReason = (typeof LINK_REFUSAL_REASONS)[number];

export type LinkKind = 'verification' | 'reset' | 'email-change' | 'undo' | 'invitation';

const WHY: Record<LinkRefusalReason, (kind: LinkKind) => string> = {
  expired: (kind) => `The ${kind} link has expired: ask for a new one`,
  replaced: (kind) => `A newer ${kind} link was sent: use the one in the latest email`,
  used: (kind) => `The ${kind} link was already used, or a change to the account withdrew it`,
  verified: () => 'The email address is already verified',
  withdrawn: (kind) => `The ${kind} was withdrawn: ask for a new one`,
};

/**
 * 401 INVALID_TOKEN for an emailed link, the contract's one code. When the token is one the
 * service issued, `details` says why it no longer works (`field: "token"`, `reason`), so the page
 * the link opens can tell an expired link from a used one; the token was in its holder's inbox,
 * so this tells them nothing about anyone else.
 */
export function invalidLink(kind: LinkKind, reason?: LinkRefusalReason): AppException {
  if (!reason) {
    return new AppException('INVALID_TOKEN', {
      message: `The ${kind} token is invalid, expired or already used`,
    });
  }
  const message = WHY[reason](kind);
  return new AppException('INVALID_TOKEN', {
    message,
    details: [{ field: 'token', message, reason }],
  });
}
