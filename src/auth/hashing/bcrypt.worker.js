'use strict';
// Runs inside a piscina worker thread: bcrypt's CPU work stays off the event loop.
const { setPriority } = require('node:os');
const { threadId } = require('node:worker_threads');
const bcrypt = require('bcryptjs');

// On Linux a priority set with pid 0 applies to the calling thread only: hashing yields the CPU
// to the event loop, so token checks stay fast while logins queue, yet uses every idle cycle.
try {
  setPriority(10);
} catch {
  // Not permitted here: run at normal priority.
}

/** `{ op: 'hash', password, cost }` → hash; `{ op: 'compare', password, hash }` → boolean. */
module.exports = function bcryptTask(task) {
  if (task.op === 'hash') return bcrypt.hashSync(task.password, task.cost);
  if (task.op === 'compare') return bcrypt.compareSync(task.password, task.hash);
  if (task.op === 'thread') return threadId;
  throw new Error(`unknown bcrypt task ${String(task.op)}`);
};
