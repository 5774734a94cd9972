import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

/**
 * Indexes for the periodic purge: without them each purge scans (and, under InnoDB's
 * REPEATABLE READ, locks) every row of the table it cleans.
 */
export class PurgeIndexes1763856000000 implements MigrationInterface {
  name = 'PurgeIndexes1763856000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createIndices('refresh_sessions', [
      new TableIndex({ name: 'idx_refresh_sessions_expires', columnNames: ['expires_at'] }),
      new TableIndex({ name: 'idx_refresh_sessions_revoked', columnNames: ['revoked_at'] }),
    ]);
    await queryRunner.createIndices('verification_tokens', [
      new TableIndex({ name: 'idx_verification_tokens_expires', columnNames: ['expires_at'] }),
      new TableIndex({ name: 'idx_verification_tokens_used', columnNames: ['used_at'] }),
    ]);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('verification_tokens', 'idx_verification_tokens_used');
    await queryRunner.dropIndex('verification_tokens', 'idx_verification_tokens_expires');
    await queryRunner.dropIndex('refresh_sessions', 'idx_refresh_sessions_revoked');
    await queryRunner.dropIndex('refresh_sessions', 'idx_refresh_sessions_expires');
  }
}
