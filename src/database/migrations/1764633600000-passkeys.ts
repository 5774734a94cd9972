import { MigrationInterface, QueryRunner, Table, TableColumnOptions } from 'typeorm';

/**
 * Passkeys (issue 25): each user's WebAuthn credentials (the public key, never a secret; the
 * signature counter that exposes a cloned authenticator; a name the user chose) and the
 * challenges of the ceremonies in progress, single-use and short-lived, in the database so a
 * ceremony begun on one instance finishes on another. A credential id is up to 1023 bytes: rows
 * are found by its SHA-256, unique. Both tables go with their user.
 */
export class Passkeys1764633600000 implements MigrationInterface {
  name = 'Passkeys1764633600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const mysql = queryRunner.connection.driver.options.type === 'mysql';
    const text = (name: string, length: number, isNullable = false): TableColumnOptions => ({
      name,
      type: 'varchar',
      length: String(length),
      isNullable,
      ...(mysql ? { charset: 'ascii', collation: 'ascii_bin' } : {}),
    });
    const time = (name: string, isNullable = false): TableColumnOptions => ({
      name,
      type: 'datetime',
      isNullable,
      ...(mysql ? { precision: 3 } : {}),
    });
    const userRef = {
      columnNames: ['user_id'],
      referencedTableName: 'users',
      referencedColumnNames: ['id'],
      onDelete: 'CASCADE',
    };
    // The users table's key is utf8mb4_bin on MySQL; a referencing column must match it.
    const userId = (isNullable = false): TableColumnOptions => ({
      ...text('user_id', 32, isNullable),
      ...(mysql ? { charset: 'utf8mb4', collation: 'utf8mb4_bin' } : {}),
    });
    await queryRunner.createTable(
      new Table({
        name: 'passkeys',
        columns: [
          { ...text('id', 32), isPrimary: true },
          userId(),
          text('credential_hash', 64),
          // base64url of up to 1023 bytes.
          text('credential_id', 1400),
          // The COSE public key, base64url: a few hundred characters for the usual algorithms.
          { name: 'public_key', type: 'text' },
          // An unsigned 32-bit count: beyond a signed int.
          { name: 'counter', type: 'bigint', default: 0 },
          text('transports', 255, true),
          text('device_type', 16),
          { name: 'backed_up', type: 'boolean' },
          {
            name: 'name',
            type: 'varchar',
            length: '64',
            ...(mysql ? { charset: 'utf8mb4', collation: 'utf8mb4_bin' } : {}),
          },
          time('created_at'),
          time('last_used_at', true),
        ],
        foreignKeys: [userRef],
        indices: [
          { name: 'idx_passkeys_credential', columnNames: ['credential_hash'], isUnique: true },
          { name: 'idx_passkeys_user', columnNames: ['user_id'] },
        ],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'webauthn_challenges',
        columns: [
          { ...text('id', 64), isPrimary: true },
          text('purpose', 16),
          // None for a passwordless sign-in: nobody is known until the passkey answers.
          userId(true),
          time('created_at'),
          time('expires_at'),
          time('used_at', true),
        ],
        foreignKeys: [userRef],
        indices: [{ name: 'idx_webauthn_challenges_expires', columnNames: ['expires_at'] }],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('webauthn_challenges');
    await queryRunner.dropTable('passkeys');
  }
}
