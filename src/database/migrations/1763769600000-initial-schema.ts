import { MigrationInterface, QueryRunner, Table, TableColumnOptions } from 'typeorm';

/**
 * Users, refresh sessions and emailed tokens, written once for both MySQL/MariaDB and SQLite.
 * On MySQL, identity columns use a binary collation: uniqueness is decided by the normal form the
 * code stores, not by a collation that ignores trailing spaces or equates accented letters.
 */
export class InitialSchema1763769600000 implements MigrationInterface {
  name = 'InitialSchema1763769600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const mysql = queryRunner.connection.driver.options.type === 'mysql';
    const text = (name: string, length: number, extra: Partial<TableColumnOptions> = {}) => ({
      name,
      type: 'varchar',
      length: String(length),
      ...(mysql ? { charset: 'utf8mb4', collation: 'utf8mb4_bin' } : {}),
      ...extra,
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

    await queryRunner.createTable(
      new Table({
        name: 'users',
        columns: [
          text('id', 32, { isPrimary: true }),
          text('email', 254),
          text('email_normalized', 254),
          text('username', 32),
          text('username_normalized', 32),
          text('password_hash', 60),
          text('role', 16, { default: "'user'" }),
          { name: 'email_verified', type: 'boolean', default: 0 },
          time('verified_at', true),
          { name: 'token_version', type: 'int', default: 0 },
          time('created_at'),
          time('updated_at'),
        ],
        uniques: [
          { name: 'uq_users_email_normalized', columnNames: ['email_normalized'] },
          { name: 'uq_users_username_normalized', columnNames: ['username_normalized'] },
        ],
      }),
    );

    await queryRunner.createTable(
      new Table({
        name: 'refresh_sessions',
        columns: [
          text('id', 64, { isPrimary: true }),
          text('user_id', 32),
          text('family_id', 36),
          time('created_at'),
          time('expires_at'),
          time('rotated_at', true),
          time('revoked_at', true),
        ],
        indices: [
          { name: 'idx_refresh_sessions_user', columnNames: ['user_id'] },
          { name: 'idx_refresh_sessions_family', columnNames: ['family_id'] },
        ],
        foreignKeys: [{ name: 'fk_refresh_sessions_user', ...userRef }],
      }),
    );

    await queryRunner.createTable(
      new Table({
        name: 'verification_tokens',
        columns: [
          text('id', 64, { isPrimary: true }),
          text('user_id', 32),
          text('purpose', 32),
          time('created_at'),
          time('expires_at'),
          time('used_at', true),
        ],
        indices: [
          { name: 'idx_verification_tokens_user_purpose', columnNames: ['user_id', 'purpose'] },
        ],
        foreignKeys: [{ name: 'fk_verification_tokens_user', ...userRef }],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('verification_tokens');
    await queryRunner.dropTable('refresh_sessions');
    await queryRunner.dropTable('users');
  }
}
