import { MigrationInterface, QueryRunner, TableColumn, TableColumnOptions } from 'typeorm';

/**
 * The account part of user management: a display name and a picture URL on users, and the
 * address a change-of-email token moves the account to, kept on the emailed token itself (the
 * pending change lives and dies with its single-use token, so no table of its own is needed).
 */
export class AccountProfile1764201600000 implements MigrationInterface {
  name = 'AccountProfile1764201600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const mysql = queryRunner.connection.driver.options.type === 'mysql';
    // Free text in any script: utf8mb4 so MariaDB stores what the user typed (and counts
    // characters as the validation does); the binary collation as for the other stored values.
    const text = (name: string, length: number): TableColumnOptions => ({
      name,
      type: 'varchar',
      length: String(length),
      isNullable: true,
      ...(mysql ? { charset: 'utf8mb4', collation: 'utf8mb4_bin' } : {}),
    });
    await queryRunner.addColumns('users', [
      new TableColumn(text('name', 100)),
      new TableColumn(text('picture', 2048)),
    ]);
    await queryRunner.addColumn('verification_tokens', new TableColumn(text('new_email', 254)));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('verification_tokens', 'new_email');
    await queryRunner.dropColumns('users', ['picture', 'name']);
  }
}
