import { MigrationInterface, QueryRunner, Table, TableColumn, TableColumnOptions } from 'typeorm';

/**
 * Sign-in by a code by email (issue 26): each mailed code and its link, one row, single use and
 * short-lived; only the link's SHA-256 (the key) and a keyed hash of the code are stored, with
 * the wrong codes it has taken. The rows go with their user. A login's pending second step now
 * says what its first step was (`pwd`, or `otp` for a mailed code), so the session it completes
 * names both methods; rows from before this are password logins.
 */
export class EmailCodes1764720000000 implements MigrationInterface {
  name = 'EmailCodes1764720000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const mysql = queryRunner.connection.driver.options.type === 'mysql';
    const text = (name: string, length: number): TableColumnOptions => ({
      name,
      type: 'varchar',
      length: String(length),
      ...(mysql ? { charset: 'ascii', collation: 'ascii_bin' } : {}),
    });
    const time = (name: string, isNullable = false): TableColumnOptions => ({
      name,
      type: 'datetime',
      isNullable,
      ...(mysql ? { precision: 3 } : {}),
    });
    await queryRunner.createTable(
      new Table({
        name: 'email_codes',
        columns: [
          { ...text('id', 64), isPrimary: true },
          // The users table's key is utf8mb4_bin on MySQL; a referencing column must match it.
          {
            ...text('user_id', 32),
            ...(mysql ? { charset: 'utf8mb4', collation: 'utf8mb4_bin' } : {}),
          },
          text('code_hash', 64),
          { name: 'attempts', type: 'int', default: 0 },
          time('created_at'),
          time('expires_at'),
          time('used_at', true),
        ],
        foreignKeys: [
          {
            columnNames: ['user_id'],
            referencedTableName: 'users',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          },
        ],
        indices: [
          { name: 'idx_email_codes_user', columnNames: ['user_id'] },
          { name: 'idx_email_codes_expires', columnNames: ['expires_at'] },
        ],
      }),
    );
    await queryRunner.addColumn(
      'mfa_challenges',
      new TableColumn({ ...text('first_factor', 8), default: "'pwd'" }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('mfa_challenges', 'first_factor');
    await queryRunner.dropTable('email_codes');
  }
}
