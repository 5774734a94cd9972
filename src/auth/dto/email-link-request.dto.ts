import { IsOptional } from 'class-validator';
import { ApplicationUrlField, EmailField } from './fields';

/** resend-verification-email, forgot-password and the mailed sign-in code's request. */
export class EmailLinkRequestDto {
  @EmailField()
  email!: string;

  @IsOptional()
  @ApplicationUrlField()
  applicationUrl?: string;
}
