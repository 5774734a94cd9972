import 'reflect-metadata';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createApp } from '../app.factory';
import { buildOpenApiDocument } from '../openapi/openapi.document';

const OPENAPI_FILE = resolve(__dirname, '..', '..', 'openapi.json');

/**
 * `npm run openapi`: writes the document the service serves at /api/docs-json to openapi.json.
 * The app is built in memory on a throwaway SQLite and data folder; nothing listens. This process
 * is the command's own: it runs in an empty folder (no `.env`) with only the variables below, so
 * the developer's settings cannot change the document.
 */
async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'auth-openapi-'));
  try {
    process.chdir(dataDir);
    for (const name of Object.keys(process.env)) delete process.env[name];
    Object.assign(process.env, {
      DATABASE_URL: 'sqlite::memory:',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
    });
    const app = await createApp();
    // As served: the global prefix and its exclusions are settled when the app initialises.
    await app.init();
    writeFileSync(OPENAPI_FILE, `${JSON.stringify(buildOpenApiDocument(app), null, 2)}\n`);
    await app.close();
    process.stdout.write(`Wrote ${OPENAPI_FILE}\n`);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
