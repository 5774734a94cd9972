import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A round trip through an identity provider that came back with the provider's word (its code
 * exchanged): only the SHA-256 of its `state` is kept, until the flow would have expired, so that
 * the same callback is never taken twice, on any instance. Flows in progress are no rows: their
 * `state` carries them, sealed (ProviderFlowStates).
 */
@Entity({ name: 'finished_federation_flows' })
export class FinishedFlow {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id!: string;

  @Column({ name: 'expires_at', type: 'datetime' })
  expiresAt!: Date;
}
