'use strict';
// Runs in a piscina worker thread: the embedded store's long reads (an administrator's listings
// and searches) on a read-only connection of their own. better-sqlite3 answers synchronously, so
// on the event loop such a read would hold every other request meanwhile; here it holds only this
// thread, and WAL lets it read beside the service's writer.
const { setPriority } = require('node:os');
const Database = require('better-sqlite3');

// On Linux a priority set with pid 0 applies to the calling thread only: the event loop and its
// writes go first, the listing uses what is left.
try {
  setPriority(10);
} catch {
  // Not permitted here: run at normal priority.
}

/** The statements are a handful of shapes (LongReads' callers build them): prepared once each. */
const MAX_PREPARED = 64;
let connection;
let prepared = new Map();

function open(file, timeoutMs) {
  if (connection?.name !== file) {
    connection?.close();
    connection = new Database(file, { readonly: true, fileMustExist: true, timeout: timeoutMs });
    prepared = new Map();
  }
  return connection;
}

function prepare(db, sql) {
  let statement = prepared.get(sql);
  if (!statement) {
    if (prepared.size >= MAX_PREPARED) prepared.clear();
    statement = db.prepare(sql);
    prepared.set(sql, statement);
  }
  return statement;
}

/** `{ file, timeoutMs, statements: [{ sql, params }] }` → the rows of each, in one snapshot. */
module.exports = function read(task) {
  try {
    const db = open(task.file, task.timeoutMs);
    const statements = task.statements.map(({ sql, params }) => [prepare(db, sql), params]);
    return db.transaction(() => statements.map(([statement, params]) => statement.all(params)))();
  } catch (error) {
    // A SqliteError reaches the service as a bare `{ code }` (its class does not cross threads):
    // a plain Error keeps what it says, for the log.
    throw new Error(`${error.code ?? 'Error'}: ${error.message}`);
  }
};
