import { IsOptional } from 'class-validator';
import { ApplicationUrlField } from '../../auth/dto/fields';

/** The body is optional; without `applicationUrl` the link opens the service's own page. */
export class SendPasswordResetDto {
  @IsOptional()
  @ApplicationUrlField()
  applicationUrl?: string;
}
