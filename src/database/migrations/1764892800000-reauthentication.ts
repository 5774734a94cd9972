import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';

/**
 * Step-up with every proof an account can have (issue 32): a mailed code now has a purpose (a
 * sign-in's, with its link, or a step-up's, with none), so neither is taken for the other; a
 * round trip through a provider may be a step-up of a session, which it names (`session_id`) so
 * the callback renews that session and no other. Rows from before are sign-ins.
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
    await queryRunner.addColumn(
      'federation_states',
      new TableColumn({
        name: 'session_id',
        type: 'varchar',
        length: '36',
        isNullable: true,
        ...ascii,
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('federation_states', 'session_id');
    await queryRunner.dropColumn('email_codes', 'purpose');
  }
}
