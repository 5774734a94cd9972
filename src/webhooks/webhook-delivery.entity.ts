import { Column, Entity, PrimaryColumn } from 'typeorm';

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/**
 * One event for one endpoint, written in the transaction of the change it reports. Its id is the
 * `webhook-id` header, the same on every attempt. While a worker sends it, `claim` names that
 * worker's claim and `nextAttemptAt` is the claim's lease: a worker that dies leaves it due again
 * once the lease ends. `body` is the exact JSON sent and signed.
 */
@Entity({ name: 'webhook_deliveries' })
export class WebhookDelivery {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id!: string;

  @Column({ name: 'webhook_id', type: 'varchar', length: 32 })
  webhookId!: string;

  @Column({ name: 'event_id', type: 'varchar', length: 40 })
  eventId!: string;

  @Column({ type: 'varchar', length: 64 })
  type!: string;

  @Column({ type: 'text' })
  body!: string;

  @Column({ type: 'varchar', length: 16 })
  status!: DeliveryStatus;

  @Column({ type: 'int' })
  attempts!: number;

  @Column({ name: 'next_attempt_at', type: 'datetime', nullable: true })
  nextAttemptAt!: Date | null;

  @Column({ type: 'varchar', length: 40, nullable: true })
  claim!: string | null;

  @Column({ name: 'last_status_code', type: 'int', nullable: true })
  lastStatusCode!: number | null;

  @Column({ name: 'last_error', type: 'varchar', length: 500, nullable: true })
  lastError!: string | null;

  @Column({ name: 'created_at', type: 'datetime' })
  createdAt!: Date;

  @Column({ name: 'finished_at', type: 'datetime', nullable: true })
  finishedAt!: Date | null;
}
