/**
 * What a request for a mail did: sent it, or (ACCOUNT_ENUMERATION_PROTECTION) took it to be sent
 * after the answer, if an account needs it.
 */
export type MailRequest = 'sent' | 'queued';
