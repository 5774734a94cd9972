import { TotpCodeField } from './second-factor-fields';

/** `POST /users/me/mfa/totp/confirm`: a code computed from the pending secret. */
export class ConfirmTotpDto {
  @TotpCodeField()
  code!: string;
}
