import { MigrationInterface, QueryRunner, Table, TableColumnOptions } from 'typeorm';

/**
 * The security audit trail. No foreign key to users: the record of what happened to an account
 * must outlive the account.
 */
export class AuditEvents1764028800000 implements MigrationInterface {
  name = 'AuditEvents1764028800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const mysql = queryRunner.connection.driver.options.type === 'mysql';
    const text = (name: string, length: number, isNullable = false): TableColumnOptions => ({
      name,
      type: 'varchar',
      length: String(length),
      isNullable,
      ...(mysql ? { charset: 'utf8mb4', collation: 'utf8mb4_bin' } : {}),
    });
    await queryRunner.createTable(
      new Table({
        name: 'audit_events',
        columns: [
          { ...text('id', 36), isPrimary: true },
          text('type', 40),
          text('user_id', 32, true),
          text('ip', 45, true),
          text('user_agent', 255, true),
          { name: 'created_at', type: 'datetime', ...(mysql ? { precision: 3 } : {}) },
        ],
        indices: [
          { name: 'idx_audit_events_user', columnNames: ['user_id', 'created_at'] },
          { name: 'idx_audit_events_created', columnNames: ['created_at'] },
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('audit_events');
  }
}
