import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * An administrator's webhook endpoint. `events` is a JSON list of event names, or `["*"]`. The
 * signing secrets are sealed (SecretBox): a copy of the database alone cannot sign as the
 * service. Through a rotation the previous secret signs beside the new one until
 * `previousSecretUntil`.
 */
@Entity({ name: 'webhooks' })
export class Webhook {
  @PrimaryColumn({ type: 'varchar', length: 32 })
  id!: string;

  @Column({ type: 'varchar', length: 2048 })
  url!: string;

  @Column({ type: 'varchar', length: 2000 })
  events!: string;

  @Column({ type: 'boolean' })
  enabled!: boolean;

  @Column({ type: 'varchar', length: 500, nullable: true })
  description!: string | null;

  @Column({ type: 'varchar', length: 200 })
  secret!: string;

  @Column({ name: 'previous_secret', type: 'varchar', length: 200, nullable: true })
  previousSecret!: string | null;

  @Column({ name: 'previous_secret_until', type: 'datetime', nullable: true })
  previousSecretUntil!: Date | null;

  @Column({ name: 'created_at', type: 'datetime' })
  createdAt!: Date;

  @Column({ name: 'updated_at', type: 'datetime' })
  updatedAt!: Date;
}
