import { IsOptional } from 'class-validator';
import { ApplicationUrlField, EmailField, TokenField } from '../../auth/dto/fields';
import { CurrentPasswordField } from './current-password.field';

/** `POST /users/me/email`: the new address gets the link; nothing changes until it is used. */
export class EmailChangeRequestDto {
  @CurrentPasswordField('password', false)
  password?: string;

  @EmailField('newEmail')
  newEmail!: string;

  @IsOptional()
  @ApplicationUrlField()
  applicationUrl?: string;
}

/** `POST /users/me/email/confirm`: the emailed token is the credential. */
export class EmailChangeConfirmDto {
  @TokenField()
  token!: string;
}

/** `POST /users/me/email/undo`: the token of the link in the notice to the old address. */
export class EmailChangeUndoDto {
  @TokenField()
  token!: string;
}
