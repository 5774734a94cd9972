#!/usr/bin/env node
// Prints the newest mail in the development outbox: who it went to, its subject and its link.
// `--token` prints only the token in the link, for scripts: TOKEN=$(npm run -s mail:last -- --token)
'use strict';
const { readdirSync, readFileSync } = require('node:fs');
const { join, resolve } = require('node:path');

const dir = resolve(process.env.MAIL_OUTBOX_DIR || join(process.env.DATA_DIR || './data', 'mail'));
let files = [];
try {
  files = readdirSync(dir)
    .filter((file) => file.endsWith('.eml'))
    .sort();
} catch {
  // No outbox yet.
}
if (files.length === 0) {
  console.error(`No mail in ${dir} yet.`);
  process.exit(1);
}
const raw = readFileSync(join(dir, files[files.length - 1]), 'latin1');
const header = (name) => (new RegExp(`^${name}: (.*)$`, 'mi').exec(raw) || [])[1] || '';
// Undo quoted-printable: soft line breaks, then =XX escapes.
const body = Buffer.from(
  raw
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, hex) => String.fromCharCode(parseInt(hex, 16))),
  'latin1',
).toString('utf8');
const link = (/https?:\/\/[^\s"<]+token=[\w-]+/.exec(body) || [])[0] || '';
const token = link ? new URL(link).searchParams.get('token') : '';
if (process.argv.includes('--token')) {
  process.stdout.write(`${token}\n`);
} else {
  console.log(`File:    ${join(dir, files[files.length - 1])}`);
  console.log(`To:      ${header('To')}`);
  console.log(`Subject: ${header('Subject')}`);
  console.log(`Link:    ${link}`);
}
