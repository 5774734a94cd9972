'use strict';
// Before `npm test`: the browser suite drives Debian's Chromium (never a downloaded browser).
// Missing, it is installed with apt-get when this runs as root; otherwise the tests stop here
// with the command to run.
const { execFileSync } = require('node:child_process');
const { existsSync } = require('node:fs');

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

if (!existsSync(CHROMIUM)) {
  if (process.getuid?.() !== 0 || !existsSync('/usr/bin/apt-get')) {
    console.error(
      `Chromium is not at ${CHROMIUM}. Install it (sudo apt-get install chromium) or set CHROMIUM_PATH.`,
    );
    process.exit(1);
  }
  console.log('Installing Debian’s chromium for the browser tests (apt-get)…');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', 'chromium'], {
    stdio: 'inherit',
    env,
  });
}
