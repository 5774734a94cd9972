import { MigrationInterface, QueryRunner, TableColumn, TableColumnOptions } from 'typeorm';

/**
 * What "my sessions" shows (issue 17): each refresh-token row carries its session's start (the
 * login), and the client IP and user agent of that login, copied forward on every rotation in
 * the row the rotation inserts anyway. The newest row's `created_at` is the session's last use.
 * The audit trail names the session a `session_ended` event ended.
 *
 * Rows written before this migration get their own `created_at` as the start, the best that is
 * known of them, and no client details.
 */
export class SessionDetails1764288000000 implements MigrationInterface {
  name = 'SessionDetails1764288000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const mysql = queryRunner.connection.driver.options.type === 'mysql';
    const text = (name: string, length: number): TableColumnOptions => ({
      name,
      type: 'varchar',
      length: String(length),
      isNullable: true,
      ...(mysql ? { charset: 'utf8mb4', collation: 'utf8mb4_bin' } : {}),
    });
    await queryRunner.addColumns('refresh_sessions', [
      new TableColumn({
        name: 'started_at',
        type: 'datetime',
        isNullable: true,
        ...(mysql ? { precision: 3 } : {}),
      }),
      new TableColumn(text('ip', 45)),
      new TableColumn(text('user_agent', 255)),
    ]);
    await queryRunner.query('UPDATE refresh_sessions SET started_at = created_at');
    await queryRunner.addColumn('audit_events', new TableColumn(text('session_id', 36)));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('audit_events', 'session_id');
    await queryRunner.dropColumns('refresh_sessions', ['started_at', 'ip', 'user_agent']);
  }
}
