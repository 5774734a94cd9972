import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

/**
 * Issue 36: an organization's members are read in the order they joined, a page at a time, and a
 * user's memberships in the same order. Each index holds the filter, the order and the rest of
 * the key, so a page is read in order from the index, never sorted. The one by user replaces the
 * index on user_id alone (it serves the foreign key just as well).
 */
export class OrganizationMemberIndexes1765411200000 implements MigrationInterface {
  name = 'OrganizationMemberIndexes1765411200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createIndices('organization_members', [
      new TableIndex({
        name: 'idx_organization_members_joined',
        columnNames: ['organization_id', 'created_at', 'user_id'],
      }),
      new TableIndex({
        name: 'idx_organization_members_user_joined',
        columnNames: ['user_id', 'created_at', 'organization_id'],
      }),
    ]);
    await queryRunner.dropIndex('organization_members', 'idx_organization_members_user');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createIndex(
      'organization_members',
      new TableIndex({ name: 'idx_organization_members_user', columnNames: ['user_id'] }),
    );
    await queryRunner.dropIndex('organization_members', 'idx_organization_members_user_joined');
    await queryRunner.dropIndex('organization_members', 'idx_organization_members_joined');
  }
}
