import { MigrationInterface, QueryRunner, Table, TableColumnOptions } from 'typeorm';

/**
 * Issue 32: a provider's round trip in progress is no longer a row. Its `state` carries it,
 * sealed, so that starts (open to anyone, from any number of addresses) write nothing; a row is
 * written only once a callback got the provider's word, to take that state once. The flows in
 * progress when this runs (at most ten minutes' worth) are lost: their callbacks answer
 * PROVIDER_ERROR, and the person starts again.
 */
export class SealedFederationFlows1764979200000 implements MigrationInterface {
  name = 'SealedFederationFlows1764979200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const columns = columnsOf(queryRunner);
    await queryRunner.createTable(
      new Table({
        name: 'finished_federation_flows',
        columns: [{ ...columns.text('id', 64), isPrimary: true }, columns.time('expires_at')],
        indices: [{ name: 'idx_finished_federation_flows_expires', columnNames: ['expires_at'] }],
      }),
    );
    await queryRunner.dropTable('federation_states');
  }

  /** The table as the identity providers' migration made it, empty. */
  async down(queryRunner: QueryRunner): Promise<void> {
    const { text, unicode, time } = columnsOf(queryRunner);
    await queryRunner.createTable(
      new Table({
        name: 'federation_states',
        columns: [
          { ...text('id', 64), isPrimary: true },
          text('provider', 32),
          text('purpose', 8),
          unicode('user_id', 32, true),
          { name: 'token_version', type: 'int', isNullable: true },
          text('browser_hash', 64),
          text('code_verifier', 128),
          text('nonce', 128),
          unicode('redirect_to', 2048),
          time('created_at'),
          time('expires_at'),
        ],
        foreignKeys: [
          {
            columnNames: ['user_id'],
            referencedTableName: 'users',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          },
        ],
        indices: [{ name: 'idx_federation_states_expires', columnNames: ['expires_at'] }],
      }),
    );
    await queryRunner.dropTable('finished_federation_flows');
  }
}

function columnsOf(queryRunner: QueryRunner) {
  const mysql = queryRunner.connection.driver.options.type === 'mysql';
  const text = (name: string, length: number, isNullable = false): TableColumnOptions => ({
    name,
    type: 'varchar',
    length: String(length),
    isNullable,
    ...(mysql ? { charset: 'ascii', collation: 'ascii_bin' } : {}),
  });
  const unicode = (name: string, length: number, isNullable = false): TableColumnOptions => ({
    ...text(name, length, isNullable),
    ...(mysql ? { charset: 'utf8mb4', collation: 'utf8mb4_bin' } : {}),
  });
  const time = (name: string): TableColumnOptions => ({
    name,
    type: 'datetime',
    ...(mysql ? { precision: 3 } : {}),
  });
  return { text, unicode, time };
}
