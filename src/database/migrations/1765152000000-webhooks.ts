import { MigrationInterface, QueryRunner, Table, TableColumnOptions } from 'typeorm';

/**
 * Webhooks through a durable outbox (issue 35): the administrators' endpoints (their signing
 * secrets sealed under MFA_ENCRYPTION_KEY, the previous one kept through a rotation), one
 * delivery per event and endpoint written in the transaction of the change it reports, and each
 * attempt at sending it. Workers find due deliveries by (status, next_attempt_at); the purge finds
 * finished ones by finished_at; the delivery log reads an endpoint's newest first.
 */
export class Webhooks1765152000000 implements MigrationInterface {
  name = 'Webhooks1765152000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const mysql = queryRunner.connection.driver.options.type === 'mysql';
    const key = (name: string, length: number): TableColumnOptions => ({
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
    const text = (name: string, length: number, isNullable = false): TableColumnOptions => ({
      name,
      type: 'varchar',
      length: String(length),
      isNullable,
    });
    await queryRunner.createTable(
      new Table({
        name: 'webhooks',
        columns: [
          { ...key('id', 32), isPrimary: true },
          text('url', 2048),
          text('events', 2000),
          { name: 'enabled', type: 'boolean', default: 1 },
          text('description', 500, true),
          key('secret', 200),
          { ...key('previous_secret', 200), isNullable: true },
          time('previous_secret_until', true),
          time('created_at'),
          time('updated_at'),
        ],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'webhook_deliveries',
        columns: [
          { ...key('id', 40), isPrimary: true },
          key('webhook_id', 32),
          key('event_id', 40),
          key('type', 64),
          { name: 'body', type: mysql ? 'mediumtext' : 'text' },
          key('status', 16),
          { name: 'attempts', type: 'int', default: 0 },
          time('next_attempt_at', true),
          { ...key('claim', 40), isNullable: true },
          { name: 'last_status_code', type: 'int', isNullable: true },
          text('last_error', 500, true),
          time('created_at'),
          time('finished_at', true),
        ],
        foreignKeys: [
          {
            columnNames: ['webhook_id'],
            referencedTableName: 'webhooks',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          },
        ],
        indices: [
          { name: 'idx_webhook_deliveries_due', columnNames: ['status', 'next_attempt_at'] },
          { name: 'idx_webhook_deliveries_log', columnNames: ['webhook_id', 'created_at'] },
          { name: 'idx_webhook_deliveries_finished', columnNames: ['finished_at'] },
        ],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'webhook_attempts',
        columns: [
          { ...key('id', 40), isPrimary: true },
          key('delivery_id', 40),
          time('attempted_at'),
          { name: 'status_code', type: 'int', isNullable: true },
          text('error', 500, true),
          { name: 'duration_ms', type: 'int' },
        ],
        foreignKeys: [
          {
            columnNames: ['delivery_id'],
            referencedTableName: 'webhook_deliveries',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          },
        ],
        indices: [{ name: 'idx_webhook_attempts_delivery', columnNames: ['delivery_id'] }],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('webhook_attempts');
    await queryRunner.dropTable('webhook_deliveries');
    await queryRunner.dropTable('webhooks');
  }
}
