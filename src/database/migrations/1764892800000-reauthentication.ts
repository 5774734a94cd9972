import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';

/**
 * Step-up with every proof an account can have (issue 32): a mailed code now has a purpose (a
 * sign-in's, with its link, or a step-up's, with none), so neither is taken for the other. Rows
 * from before are sign-ins. (A provider's step-up names its session in the sealed flow state.)
 */
export class Reauthentication1764892800000 implements MigrationInterface {
  name = 'Reauthentication1764892800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const mysql = queryRunner.connection.driver.options.type === 'mysql';
    const ascii = mysql ? { charset: 'ascii', collation: 'ascii_bin' } : {};
    await queryRunner.addColumn(
      'email_codes',
      new TableColumn({
        name: 'purpose',
        type: 'varchar',
        length: '16',
        default: "'sign_in'",
        ...ascii,
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('email_codes', 'purpose');
  }
}
