import { ApiProperty } from '@nestjs/swagger';
import { SUBSCRIBABLE } from './dto/webhook-fields';
import { DELIVERY_STATUSES, DeliveryStatus, WebhookDelivery } from './webhook-delivery.entity';
import { Webhook } from './webhook.entity';

/** An endpoint as administrators see it: never its secret, but in the answer that made it. */
export class WebhookView {
  @ApiProperty({ example: 'wh_3q2-7bYk1xH0aVdPz9Lm' })
  id!: string;

  @ApiProperty({ format: 'uri', example: 'https://hooks.example.com/auth' })
  url!: string;

  @ApiProperty({ enum: SUBSCRIBABLE, isArray: true, example: ['user.created'] })
  events!: string[];

  @ApiProperty({ description: 'False: no new events are queued for it and none are sent.' })
  enabled!: boolean;

  @ApiProperty({ type: String, nullable: true })
  description!: string | null;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;
}

export class NewWebhookView extends WebhookView {
  @ApiProperty({
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    description: 'Signs every delivery (Standard Webhooks). Shown in this answer only.',
  })
  secret!: string;
}

export class NewWebhookDataModel {
  @ApiProperty({ type: NewWebhookView })
  webhook!: NewWebhookView;
}

export class WebhookDataModel {
  @ApiProperty({ type: WebhookView })
  webhook!: WebhookView;
}

export class WebhooksDataModel {
  @ApiProperty({ type: [WebhookView] })
  webhooks!: WebhookView[];
}

export class WebhookSecretDataModel {
  @ApiProperty({
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    description: 'The new secret, shown once; the previous one keeps signing beside it for 24 h.',
  })
  secret!: string;
}

/** One event for one endpoint, and how sending it went. */
export class DeliveryView {
  @ApiProperty({ example: 'msg_2fQh0dJvS8nq1WmXo4Ra', description: 'The `webhook-id` header.' })
  id!: string;

  @ApiProperty({ example: 'evt_9hXq2LmVb0sPz3YdKc1T' })
  event_id!: string;

  @ApiProperty({ example: 'user.created' })
  type!: string;

  @ApiProperty({ enum: DELIVERY_STATUSES })
  status!: DeliveryStatus;

  @ApiProperty({ description: 'Attempts made so far.' })
  attempts!: number;

  @ApiProperty({ type: Number, nullable: true, description: "The last attempt's HTTP status." })
  last_status_code!: number | null;

  @ApiProperty({ type: String, nullable: true, description: 'Why the last attempt failed.' })
  last_error!: string | null;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'When it is tried next (pending only).',
  })
  next_attempt_at!: string | null;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;
}

export class DeliveriesDataModel {
  @ApiProperty({ type: [DeliveryView] })
  deliveries!: DeliveryView[];
}

export class DeliveryDataModel {
  @ApiProperty({ type: DeliveryView })
  delivery!: DeliveryView;
}

export function webhookView(webhook: Webhook): WebhookView {
  return {
    id: webhook.id,
    url: webhook.url,
    events: JSON.parse(webhook.events) as string[],
    enabled: webhook.enabled,
    description: webhook.description,
    created_at: webhook.createdAt.toISOString(),
  };
}

export function deliveryView(delivery: WebhookDelivery): DeliveryView {
  return {
    id: delivery.id,
    event_id: delivery.eventId,
    type: delivery.type,
    status: delivery.status,
    attempts: delivery.attempts,
    last_status_code: delivery.lastStatusCode,
    last_error: delivery.lastError,
    // While claimed, next_attempt_at is the claim's lease: the attempt is under way.
    next_attempt_at:
      delivery.status === 'pending' ? (delivery.nextAttemptAt?.toISOString() ?? null) : null,
    created_at: delivery.createdAt.toISOString(),
  };
}
