import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

/**
 * Revocations update a user's (logout, reset) or a family's (reuse) live sessions:
 * `WHERE user_id = ? AND revoked_at IS NULL`. With single-column indexes MariaDB could pick the
 * one on `revoked_at`, locking the live sessions of other users too, and deadlock with their
 * logins. Composite indexes make the narrow range the obvious plan; they also serve every lookup
 * by user or family alone, so the single-column ones go.
 */
export class LiveSessionsIndexes1764115200000 implements MigrationInterface {
  name = 'LiveSessionsIndexes1764115200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createIndices('refresh_sessions', [
      new TableIndex({
        name: 'idx_refresh_sessions_user_live',
        columnNames: ['user_id', 'revoked_at'],
      }),
      new TableIndex({
        name: 'idx_refresh_sessions_family_live',
        columnNames: ['family_id', 'revoked_at'],
      }),
    ]);
    await queryRunner.dropIndex('refresh_sessions', 'idx_refresh_sessions_user');
    await queryRunner.dropIndex('refresh_sessions', 'idx_refresh_sessions_family');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createIndices('refresh_sessions', [
      new TableIndex({ name: 'idx_refresh_sessions_user', columnNames: ['user_id'] }),
      new TableIndex({ name: 'idx_refresh_sessions_family', columnNames: ['family_id'] }),
    ]);
    await queryRunner.dropIndex('refresh_sessions', 'idx_refresh_sessions_user_live');
    await queryRunner.dropIndex('refresh_sessions', 'idx_refresh_sessions_family_live');
  }
}
