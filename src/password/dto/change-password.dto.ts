import { IsPassword } from '../../common/validation/password.decorator';
import { CurrentPasswordField } from '../../account/dto/current-password.field';

/**
 * `POST /users/me/password`. The new password follows registration's rules; that it is not the
 * account's email or username is checked by the service, which knows them.
 */
export class ChangePasswordDto {
  @CurrentPasswordField('currentPassword')
  currentPassword!: string;

  @IsPassword()
  newPassword!: string;
}
