import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';

/**
 * Administration: `users.disabled_at` (null while the account may log in) and
 * `audit_events.actor_id` (the administrator who acted; null when the user acted on their own
 * account, or an operator command did). Both nullable, so existing rows need no value.
 */
export class DisabledAccounts1764374400000 implements MigrationInterface {
  name = 'DisabledAccounts1764374400000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const mysql = queryRunner.connection.driver.options.type === 'mysql';
    await queryRunner.addColumn(
      'users',
      new TableColumn({
        name: 'disabled_at',
        type: 'datetime',
        isNullable: true,
        ...(mysql ? { precision: 3 } : {}),
      }),
    );
    await queryRunner.addColumn(
      'audit_events',
      new TableColumn({
        name: 'actor_id',
        type: 'varchar',
        length: '32',
        isNullable: true,
        ...(mysql ? { charset: 'utf8mb4', collation: 'utf8mb4_bin' } : {}),
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('audit_events', 'actor_id');
    await queryRunner.dropColumn('users', 'disabled_at');
  }
}
