import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

/**
 * For the frequent purge of rotated refresh sessions (TokenJanitor): without it each purge would
 * scan the whole table every few seconds.
 */
export class RetiredSessionsIndex1763942400000 implements MigrationInterface {
  name = 'RetiredSessionsIndex1763942400000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createIndex(
      'refresh_sessions',
      new TableIndex({ name: 'idx_refresh_sessions_rotated', columnNames: ['rotated_at'] }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('refresh_sessions', 'idx_refresh_sessions_rotated');
  }
}
