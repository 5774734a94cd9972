// Feeds the TypeORM CLI (`npm run migration:run`, `migration:show`, `migration:revert`) with the
// same DATABASE_URL rules the service uses at boot.
import 'reflect-metadata';
import 'dotenv/config';
import { DataSource } from 'typeorm';
import { loadConfig } from './src/config/config.loader';
import { buildDataSourceOptions } from './src/database/data-source.options';

const { database } = loadConfig(process.env);

export default new DataSource({
  ...buildDataSourceOptions(database),
  migrationsRun: false,
});
