import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';

/**
 * Whether a session has claims a module adds to its access tokens (an active organization): a
 * refresh asks the modules only for sessions that have some. Rows from before are null, asked.
 */
export class SessionModuleClaims1765324800000 implements MigrationInterface {
  name = 'SessionModuleClaims1765324800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumn(
      'refresh_sessions',
      new TableColumn({ name: 'module_claims', type: 'boolean', isNullable: true }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('refresh_sessions', 'module_claims');
  }
}
