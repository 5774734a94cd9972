import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

/**
 * Issue 33: the administrators' listing (`GET /admin/users`) reads users newest first, then by
 * id, and searches the beginning of the normalised email or username. Without these it sorted
 * the whole table for every page and scanned it for every search. Each index holds every column
 * its query reads (created_at, id and the two searched columns), so a page or a search reads
 * index entries only, never the rows: the ones on the searched columns for a narrow search, the
 * one by date for the unfiltered listing and for a search that matches many (see UserListing).
 */
export class UserListingIndexes1765065600000 implements MigrationInterface {
  name = 'UserListingIndexes1765065600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createIndices('users', [
      new TableIndex({
        name: 'idx_users_listing',
        columnNames: ['created_at', 'id', 'email_normalized', 'username_normalized'],
      }),
      new TableIndex({
        name: 'idx_users_email_listing',
        columnNames: ['email_normalized', 'created_at', 'id'],
      }),
      new TableIndex({
        name: 'idx_users_username_listing',
        columnNames: ['username_normalized', 'created_at', 'id'],
      }),
    ]);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('users', 'idx_users_username_listing');
    await queryRunner.dropIndex('users', 'idx_users_email_listing');
    await queryRunner.dropIndex('users', 'idx_users_listing');
  }
}
