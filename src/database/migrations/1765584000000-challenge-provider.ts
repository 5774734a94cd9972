import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';

/**
 * A login's pending second step keeps the identity provider its first step went through (issue
 * 36: the provider's organization takes in whoever signs in through it, once the sign-in has
 * completed). Rows from before this went through none.
 */
export class ChallengeProvider1765584000000 implements MigrationInterface {
  name = 'ChallengeProvider1765584000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const mysql = queryRunner.connection.driver.options.type === 'mysql';
    await queryRunner.addColumn(
      'mfa_challenges',
      new TableColumn({
        name: 'provider',
        type: 'varchar',
        length: '32',
        isNullable: true,
        ...(mysql ? { charset: 'ascii', collation: 'ascii_bin' } : {}),
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('mfa_challenges', 'provider');
  }
}
