'use strict';
// The SDK's weight as a browser downloads it: every module of client/dist minified (terser) and
// gzipped, summed. Run after `npm run build:client`:  npm run -s size:client
const { readdirSync, readFileSync } = require('node:fs');
const { join } = require('node:path');
const { gzipSync } = require('node:zlib');
const { minify } = require('terser');

const DIST = join(__dirname, '..', 'client', 'dist');

async function main() {
  const files = readdirSync(DIST).filter((name) => name.endsWith('.js'));
  let minified = 0;
  let gzipped = 0;
  for (const name of files) {
    const { code } = await minify(readFileSync(join(DIST, name), 'utf8'), {
      module: true,
      compress: true,
      mangle: true,
    });
    minified += Buffer.byteLength(code);
    gzipped += gzipSync(code, { level: 9 }).length;
  }
  const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;
  console.log(`SDK: ${files.length} modules, ${kb(minified)} minified, ${kb(gzipped)} gzipped`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
