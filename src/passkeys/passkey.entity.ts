import { Column, Entity, PrimaryColumn } from 'typeorm';

/** MySQL hands a BIGINT back as a string; counters fit a JavaScript number exactly. */
const asNumber = { to: (value: number) => value, from: (value: unknown) => Number(value) };

/** One WebAuthn credential of a user: its public key (no secret) and what the ceremonies check. */
@Entity({ name: 'passkeys' })
export class Passkey {
  /** `pk_` and random hex: the id the routes take, shorter than a credential id. */
  @PrimaryColumn({ type: 'varchar', length: 32 })
  id!: string;

  @Column({ name: 'user_id', type: 'varchar', length: 32 })
  userId!: string;

  /** SHA-256 of `credentialId`, unique: how an assertion finds its row. */
  @Column({ name: 'credential_hash', type: 'varchar', length: 64 })
  credentialHash!: string;

  /** base64url, as the browser names the credential. */
  @Column({ name: 'credential_id', type: 'varchar', length: 1400 })
  credentialId!: string;

  /** The COSE public key, base64url. */
  @Column({ name: 'public_key', type: 'text' })
  publicKey!: string;

  /** The signature counter last seen; 0 for authenticators that keep none. */
  @Column({ type: 'bigint', transformer: asNumber })
  counter!: number;

  /** Comma-separated hints for the browser (`internal`, `usb`, `hybrid`…); null when none. */
  @Column({ type: 'varchar', length: 255, nullable: true })
  transports!: string | null;

  /** `singleDevice` (bound to hardware: amr `hwk`) or `multiDevice` (synced: amr `swk`). */
  @Column({ name: 'device_type', type: 'varchar', length: 16 })
  deviceType!: string;

  @Column({ name: 'backed_up', type: 'boolean' })
  backedUp!: boolean;

  @Column({ type: 'varchar', length: 64 })
  name!: string;

  @Column({ name: 'created_at', type: 'datetime' })
  createdAt!: Date;

  @Column({ name: 'last_used_at', type: 'datetime', nullable: true })
  lastUsedAt!: Date | null;
}
