import { MigrationInterface, QueryRunner, Table, TableColumnOptions } from 'typeorm';

/**
 * The mails that may fail quietly through a durable outbox (issue 35): one row a mail, written in
 * the transaction of the change it tells of, its payload sealed. Workers find due rows by (status,
 * next_attempt_at); the purge finds finished ones by finished_at.
 */
export class MailQueue1765497600000 implements MigrationInterface {
  name = 'MailQueue1765497600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const mysql = queryRunner.connection.driver.options.type === 'mysql';
    const key = (name: string, length: number, isNullable = false): TableColumnOptions => ({
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
    await queryRunner.createTable(
      new Table({
        name: 'mail_queue',
        columns: [
          { ...key('id', 40), isPrimary: true },
          key('kind', 32),
          { name: 'payload', type: 'text' },
          key('status', 16),
          { name: 'attempts', type: 'int', default: 0 },
          time('next_attempt_at', true),
          key('claim', 40, true),
          time('expires_at', true),
          { name: 'last_error', type: 'varchar', length: '500', isNullable: true },
          time('created_at'),
          time('finished_at', true),
        ],
        indices: [
          { name: 'idx_mail_queue_due', columnNames: ['status', 'next_attempt_at'] },
          { name: 'idx_mail_queue_finished', columnNames: ['finished_at'] },
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('mail_queue');
  }
}
