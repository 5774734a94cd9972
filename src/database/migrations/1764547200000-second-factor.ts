import { MigrationInterface, QueryRunner, Table, TableColumnOptions } from 'typeorm';

/**
 * A second factor (issue 24): a user's TOTP secret (sealed with MFA_ENCRYPTION_KEY, never stored
 * in clear) and the last time step a code was accepted for (a code works once), its recovery
 * codes (hashes only), and the short-lived challenges a password login hands out while the
 * second step is pending (hashes only). All three go with their user.
 */
export class SecondFactor1764547200000 implements MigrationInterface {
  name = 'SecondFactor1764547200000';

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
    // Foreign keys to users: the users table's key is utf8mb4_bin on MySQL; a referencing
    // column must match it.
    const userId: TableColumnOptions = {
      ...text('user_id', 32),
      ...(mysql ? { charset: 'utf8mb4', collation: 'utf8mb4_bin' } : {}),
    };
    await queryRunner.createTable(
      new Table({
        name: 'user_mfa',
        columns: [
          { ...userId, isPrimary: true },
          text('totp_secret', 255, true),
          time('totp_enabled_at', true),
          { name: 'totp_last_step', type: 'int', isNullable: true },
          text('pending_secret', 255, true),
          time('pending_at', true),
          time('updated_at'),
        ],
        foreignKeys: [userRef],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'mfa_recovery_codes',
        columns: [
          { ...text('id', 64), isPrimary: true },
          userId,
          time('created_at'),
          time('used_at', true),
        ],
        foreignKeys: [userRef],
        indices: [{ name: 'idx_mfa_recovery_codes_user', columnNames: ['user_id'] }],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'mfa_challenges',
        columns: [
          { ...text('id', 64), isPrimary: true },
          userId,
          { name: 'token_version', type: 'int' },
          time('created_at'),
          time('expires_at'),
          time('used_at', true),
        ],
        foreignKeys: [userRef],
        indices: [
          { name: 'idx_mfa_challenges_user', columnNames: ['user_id'] },
          { name: 'idx_mfa_challenges_expires', columnNames: ['expires_at'] },
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('mfa_challenges');
    await queryRunner.dropTable('mfa_recovery_codes');
    await queryRunner.dropTable('user_mfa');
  }
}
