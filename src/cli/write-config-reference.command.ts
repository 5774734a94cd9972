import { writeFileSync } from 'node:fs';
import { CONFIG_REFERENCE, renderConfigReference } from '../config/config-reference';

/** `npm run docs:config`: writes docs/configuration.md from the config loader and .env.example. */
writeFileSync(CONFIG_REFERENCE, renderConfigReference());
process.stdout.write(`Wrote ${CONFIG_REFERENCE}\n`);
