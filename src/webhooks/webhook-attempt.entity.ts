import { Column, Entity, PrimaryColumn } from 'typeorm';

/** One try at sending a delivery: what the receiver answered, or why there was no answer. */
@Entity({ name: 'webhook_attempts' })
export class WebhookAttempt {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id!: string;

  @Column({ name: 'delivery_id', type: 'varchar', length: 40 })
  deliveryId!: string;

  @Column({ name: 'attempted_at', type: 'datetime' })
  attemptedAt!: Date;

  @Column({ name: 'status_code', type: 'int', nullable: true })
  statusCode!: number | null;

  @Column({ type: 'varchar', length: 500, nullable: true })
  error!: string | null;

  @Column({ name: 'duration_ms', type: 'int' })
  durationMs!: number;
}
