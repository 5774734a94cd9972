'use strict';
// BENCH_BASELINE=<git ref>: an earlier commit built in a temporary git worktree, so `npm run bench`
// can run it beside this checkout in the same rounds. See docs/performance.md.
const { execFileSync } = require('node:child_process');
const { existsSync, mkdtempSync, readFileSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { ROOT } = require('./service');

const git = (args, options = {}) =>
  execFileSync('git', ['-C', ROOT, ...args], { encoding: 'utf8', ...options }).trim();

/** The commit `ref` names; throws a one-line error before anything is built. */
function resolveCommit(ref) {
  try {
    return git(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], { stdio: 'pipe' });
  } catch {
    throw new Error(`BENCH_BASELINE: ${ref} is not a commit of this repository`);
  }
}

/**
 * Whether this checkout's node_modules serve `commit` as installed: every package its lock names
 * is here at the same version (packages added since, such as a new dev tool, change nothing it
 * loads). Then no `npm ci` is needed.
 */
function sameLockfile(commit) {
  const current = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')).packages;
  const theirs = JSON.parse(
    execFileSync('git', ['-C', ROOT, 'show', `${commit}:package-lock.json`], {
      encoding: 'utf8',
      maxBuffer: 256 * 2 ** 20,
    }),
  ).packages;
  return Object.entries(theirs).every(
    ([path, entry]) => path === '' || current[path]?.version === entry.version,
  );
}

/** This checkout's commit, and whether the service's sources differ from it. */
function currentCommit() {
  const commit = git(['rev-parse', 'HEAD']);
  const changed = git(['status', '--porcelain', '--untracked-files=no', '--', 'src']) !== '';
  return { commit, changed };
}

/**
 * Checks `commit` out into a temporary worktree, gives it node_modules and builds it. `remove()`
 * must be called whatever happens; it is also safe to call twice or before the worktree exists.
 */
function prepareBaseline(ref, commit) {
  const dir = mkdtempSync(join(tmpdir(), 'auth-bench-worktree-'));
  let removed = false;
  const remove = () => {
    if (removed) return;
    removed = true;
    try {
      git(['worktree', 'remove', '--force', dir], { stdio: 'pipe' });
    } catch {
      // Never registered, or half made: the folder goes and git forgets it.
      rmSync(dir, { recursive: true, force: true });
      git(['worktree', 'prune']);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const baseline = { ref, commit, dir, remove, npmCi: false };
  try {
    git(['worktree', 'add', '--detach', dir, commit], { stdio: 'pipe' });
    if (sameLockfile(commit)) {
      // The same dependencies: hard links cost neither time nor disk.
      execFileSync('cp', ['-al', join(ROOT, 'node_modules'), join(dir, 'node_modules')]);
    } else {
      console.log(
        `BENCH_BASELINE ${ref}: its package-lock.json names packages this checkout lacks, so npm ci ` +
          'installs its own node_modules (this takes a few minutes)…',
      );
      baseline.npmCi = true;
      execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: dir, stdio: 'inherit' });
    }
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    console.log(`Building BENCH_BASELINE ${ref} (${commit.slice(0, 10)})…`);
    if (pkg.scripts?.build) {
      execFileSync('npm', ['run', '-s', 'build'], { cwd: dir, stdio: 'inherit' });
    } else {
      execFileSync('npx', ['nest', 'build'], { cwd: dir, stdio: 'inherit' });
    }
    baseline.main = join(dir, 'dist', 'main.js');
    if (!existsSync(baseline.main)) throw new Error(`BENCH_BASELINE ${ref}: no dist/main.js built`);
    // The Node flags of its own `npm run start:prod`, as the current build gets its own.
    baseline.nodeFlags = (pkg.scripts?.['start:prod'] ?? '')
      .split(/\s+/)
      .filter((arg) => arg.startsWith('--'));
    return baseline;
  } catch (error) {
    remove();
    throw error;
  }
}

module.exports = { currentCommit, prepareBaseline, resolveCommit, sameLockfile };
