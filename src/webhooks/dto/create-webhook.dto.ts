import { DescriptionField, EventsField, UrlField } from './webhook-fields';

export class CreateWebhookDto {
  @UrlField(true)
  url!: string;

  @EventsField(true)
  events!: string[];

  @DescriptionField()
  description?: string | null;
}
