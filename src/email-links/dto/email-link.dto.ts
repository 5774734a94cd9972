import { IsOptional } from 'class-validator';
import { IsPassword } from '../../common/validation/password.decorator';
import { ApplicationUrlField, EmailField, TokenField } from '../../auth/dto/fields';

export class VerifyEmailDto {
  @TokenField()
  token!: string;

  @IsOptional()
  @ApplicationUrlField()
  applicationUrl?: string;
}

/** reset-password, variant A: `{ email }` alone sends a reset email. */
export class ResetRequestDto {
  @EmailField()
  email!: string;
}

/**
 * reset-password, variant B: `{ token, newPassword }` sets the password. Whose password it is
 * is known only once the token is looked up, so the service compares it with that account's
 * email and username; the list of common passwords is checked here.
 */
export class ResetConfirmDto {
  @TokenField()
  token!: string;

  @IsPassword()
  newPassword!: string;
}
