import { MigrationInterface, QueryRunner, Table, TableColumnOptions } from 'typeorm';

/**
 * Organizations (issue 36): the organizations, their members (one row per user and organization,
 * with its role), the invitations mailed to join one (only the SHA-256 of a token is stored), and
 * each session's active organization (by session family, so a refresh reads it by key). Every
 * table goes with its organization; members and active organizations go with their user too.
 */
export class Organizations1765238400000 implements MigrationInterface {
  name = 'Organizations1765238400000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const mysql = queryRunner.connection.driver.options.type === 'mysql';
    const text = (name: string, length: number, isNullable = false): TableColumnOptions => ({
      name,
      type: 'varchar',
      length: String(length),
      isNullable,
      ...(mysql ? { charset: 'ascii', collation: 'ascii_bin' } : {}),
    });
    // People's words: the organization's name, an invited address.
    const words = (name: string, length: number): TableColumnOptions => ({
      name,
      type: 'varchar',
      length: String(length),
      ...(mysql ? { charset: 'utf8mb4', collation: 'utf8mb4_bin' } : {}),
    });
    const time = (name: string, isNullable = false): TableColumnOptions => ({
      name,
      type: 'datetime',
      isNullable,
      ...(mysql ? { precision: 3 } : {}),
    });
    // The users table's key is utf8mb4_bin on MySQL; a referencing column must match it.
    const userId = (name = 'user_id', isNullable = false): TableColumnOptions => ({
      ...text(name, 32, isNullable),
      ...(mysql ? { charset: 'utf8mb4', collation: 'utf8mb4_bin' } : {}),
    });
    const cascade = (column: string, table: string) => ({
      columnNames: [column],
      referencedTableName: table,
      referencedColumnNames: ['id'],
      onDelete: 'CASCADE',
    });
    await queryRunner.createTable(
      new Table({
        name: 'organizations',
        columns: [
          { ...text('id', 32), isPrimary: true },
          words('name', 100),
          text('slug', 48),
          time('created_at'),
          time('updated_at'),
        ],
        indices: [
          { name: 'idx_organizations_slug', columnNames: ['slug'], isUnique: true },
          { name: 'idx_organizations_listing', columnNames: ['created_at', 'id'] },
        ],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'organization_members',
        columns: [
          { ...text('organization_id', 32), isPrimary: true },
          { ...userId(), isPrimary: true },
          text('role', 16),
          time('created_at'),
        ],
        foreignKeys: [cascade('organization_id', 'organizations'), cascade('user_id', 'users')],
        indices: [{ name: 'idx_organization_members_user', columnNames: ['user_id'] }],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'organization_invitations',
        columns: [
          { ...text('id', 32), isPrimary: true },
          text('organization_id', 32),
          words('email', 254),
          words('email_normalized', 254),
          text('role', 16),
          text('token_hash', 64),
          // Who invited; kept (no key) when that account goes.
          userId('invited_by', true),
          time('created_at'),
          time('expires_at'),
          time('accepted_at', true),
          time('withdrawn_at', true),
        ],
        foreignKeys: [cascade('organization_id', 'organizations')],
        indices: [
          {
            name: 'idx_organization_invitations_token',
            columnNames: ['token_hash'],
            isUnique: true,
          },
          { name: 'idx_organization_invitations_org', columnNames: ['organization_id'] },
        ],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'session_organizations',
        columns: [
          // The session family (`sid`): refresh_sessions' family_id.
          { ...text('family_id', 36), isPrimary: true },
          userId(),
          text('organization_id', 32),
          time('created_at'),
        ],
        foreignKeys: [cascade('organization_id', 'organizations'), cascade('user_id', 'users')],
        indices: [
          {
            name: 'idx_session_organizations_member',
            columnNames: ['organization_id', 'user_id'],
          },
          { name: 'idx_session_organizations_user', columnNames: ['user_id'] },
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('session_organizations');
    await queryRunner.dropTable('organization_invitations');
    await queryRunner.dropTable('organization_members');
    await queryRunner.dropTable('organizations');
  }
}
