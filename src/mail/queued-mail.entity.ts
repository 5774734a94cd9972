import { Column, Entity, PrimaryColumn } from 'typeorm';

export type QueuedMailStatus = 'pending' | 'sent' | 'failed' | 'expired';

/**
 * A mail that may fail quietly, written in the transaction of the change it tells of and sent by
 * whichever instance claims it (MailQueueWorker). `payload` is what renders it, sealed under
 * MFA_ENCRYPTION_KEY (it holds the address and, for a link, the live token); `expiresAt` is when
 * its link dies, after which it is never sent. `claim` and `nextAttemptAt` are the lease, as for
 * webhook deliveries.
 */
@Entity({ name: 'mail_queue' })
export class QueuedMail {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id!: string;

  @Column({ type: 'varchar', length: 32 })
  kind!: string;

  @Column({ type: 'text' })
  payload!: string;

  @Column({ type: 'varchar', length: 16 })
  status!: QueuedMailStatus;

  @Column({ type: 'int' })
  attempts!: number;

  @Column({ name: 'next_attempt_at', type: 'datetime', nullable: true })
  nextAttemptAt!: Date | null;

  @Column({ type: 'varchar', length: 40, nullable: true })
  claim!: string | null;

  @Column({ name: 'expires_at', type: 'datetime', nullable: true })
  expiresAt!: Date | null;

  @Column({ name: 'last_error', type: 'varchar', length: 500, nullable: true })
  lastError!: string | null;

  @Column({ name: 'created_at', type: 'datetime' })
  createdAt!: Date;

  @Column({ name: 'finished_at', type: 'datetime', nullable: true })
  finishedAt!: Date | null;
}
