import { ReauthenticateDto, SecondFactorVerifyDto, proofField } from '../../auth/dto/proof-bodies';
import { RecoveryCodeField, TotpCodeField } from './second-factor-fields';

/**
 * The authenticator app's `code` in a login's second step and in a step-up; a `recovery_code`
 * in the second step only (a step-up's body has no such field).
 */
export function addAuthenticatorAppProofs(): void {
  proofField(SecondFactorVerifyDto, 'code', String, TotpCodeField(false));
  proofField(SecondFactorVerifyDto, 'recovery_code', String, RecoveryCodeField());
  proofField(ReauthenticateDto, 'code', String, TotpCodeField(false));
}
