import { MigrationInterface, QueryRunner, Table, TableColumn, TableColumnOptions } from 'typeorm';

/**
 * Identity providers (issue 26): the identities linked to each account (a provider's subject,
 * unique per provider, one per provider and account), the sign-ins in progress (state, PKCE
 * verifier and nonce, kept server-side so a callback may land on another instance, single use and
 * short-lived), an account without a password (one created by a provider: `password_hash`
 * becomes nullable). The second step's first factor (`fed`) is the column the email-codes
 * migration added.
 */
export class IdentityProviders1764806400000 implements MigrationInterface {
  name = 'IdentityProviders1764806400000';

  async up(queryRunner: QueryRunner): Promise<void> {
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
    const userRef = {
      columnNames: ['user_id'],
      referencedTableName: 'users',
      referencedColumnNames: ['id'],
      onDelete: 'CASCADE',
    };
    await queryRunner.createTable(
      new Table({
        name: 'user_identities',
        columns: [
          { ...text('id', 32), isPrimary: true },
          unicode('user_id', 32),
          text('provider', 32),
          unicode('subject', 255),
          unicode('email', 254, true),
          time('created_at'),
        ],
        foreignKeys: [userRef],
        indices: [
          { name: 'idx_identities_subject', columnNames: ['provider', 'subject'], isUnique: true },
          { name: 'idx_identities_user', columnNames: ['user_id', 'provider'], isUnique: true },
        ],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'federation_states',
        columns: [
          { ...text('id', 64), isPrimary: true },
          text('provider', 32),
          text('purpose', 8),
          // Set when a signed-in user links an identity; null for a sign-in.
          unicode('user_id', 32, true),
          // The linking user's token version when the link began: a reset (or any ending of
          // every session) in the round trip moves it, and the link is refused.
          { name: 'token_version', type: 'int', isNullable: true },
          text('browser_hash', 64),
          text('code_verifier', 128),
          text('nonce', 128),
          unicode('redirect_to', 2048),
          time('created_at'),
          time('expires_at'),
        ],
        foreignKeys: [userRef],
        indices: [{ name: 'idx_federation_states_expires', columnNames: ['expires_at'] }],
      }),
    );
    const hash = await queryRunner.getTable('users');
    const column = hash!.findColumnByName('password_hash')!;
    await queryRunner.changeColumn(
      'users',
      column,
      new TableColumn({ ...column, isNullable: true }),
    );
  }

  /**
   * Refused while accounts without a password exist: `password_hash` cannot become required
   * again with them, and deleting them (with everything of theirs) is no thing a schema step may
   * decide. They set a password through the reset mail, or an administrator deletes them; then
   * this runs.
   */
  async down(queryRunner: QueryRunner): Promise<void> {
    const [{ count }] = (await queryRunner.query(
      'SELECT COUNT(*) AS count FROM users WHERE password_hash IS NULL',
    )) as Array<{ count: number | string }>;
    if (Number(count) > 0) {
      throw new Error(
        `Cannot revert IdentityProviders1764806400000: ${Number(count)} passwordless ` +
          'account(s) (made by an identity provider) exist and password_hash would become ' +
          'required again. Have them set a password (reset mail) or delete them, then revert.',
      );
    }
    const column = (await queryRunner.getTable('users'))!.findColumnByName('password_hash')!;
    await queryRunner.changeColumn(
      'users',
      column,
      new TableColumn({ ...column, isNullable: false }),
    );
    await queryRunner.dropTable('federation_states');
    await queryRunner.dropTable('user_identities');
  }
}
