import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';

/**
 * How each session was authenticated (issue 24): when (`auth_time`, which a reauthentication
 * moves) and with which methods (`amr`, RFC 8176 names, comma-separated), copied forward on every
 * rotation as the session's start is, so every access token of the session can say both.
 *
 * Rows written before this migration were all password logins: `pwd`, at the session's start.
 */
export class SessionAuthentication1764460800000 implements MigrationInterface {
  name = 'SessionAuthentication1764460800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const mysql = queryRunner.connection.driver.options.type === 'mysql';
    await queryRunner.addColumns('refresh_sessions', [
      new TableColumn({
        name: 'auth_time',
        type: 'datetime',
        isNullable: true,
        ...(mysql ? { precision: 3 } : {}),
      }),
      new TableColumn({
        name: 'amr',
        type: 'varchar',
        length: '64',
        isNullable: true,
        ...(mysql ? { charset: 'ascii', collation: 'ascii_bin' } : {}),
      }),
    ]);
    await queryRunner.query(
      "UPDATE refresh_sessions SET auth_time = COALESCE(started_at, created_at), amr = 'pwd'",
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumns('refresh_sessions', ['auth_time', 'amr']);
  }
}
