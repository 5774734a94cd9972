import { CurrentPasswordField } from '../../account/dto/current-password.field';

/**
 * `DELETE /users/me`: the current password confirms it is the owner, not a borrowed session; an
 * account without a password leaves it out, and a recent sign-in confirms it instead.
 */
export class DeleteAccountDto {
  @CurrentPasswordField('password', false)
  password?: string;
}
