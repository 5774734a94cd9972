import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsOptional } from 'class-validator';
import { DescriptionField, EventsField, UrlField } from './webhook-fields';

/** Only the fields given change; a disabled endpoint gets no new events and sends none. */
export class UpdateWebhookDto {
  @IsOptional()
  @UrlField(false)
  url?: string;

  @IsOptional()
  @EventsField(false)
  events?: string[];

  @DescriptionField()
  description?: string | null;

  @ApiPropertyOptional()
  @IsOptional()
  @IsBoolean({ message: 'enabled must be true or false' })
  enabled?: boolean;
}
