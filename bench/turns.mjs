// The turn ledger's git snapshots in a repository of 10,000 files (100 directories of 100, committed)
// with a few files modified and a few new untracked: `take()` cold (the first snapshot of a fresh
// checkout) and warm (later ones), `tree()` and `summary()`, beside `git stash create` on the same
// tree (a stash commit, without the stash list). Medians of 7 runs; the goal: well under a second.
// Run: npm run bench:turns
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { median, ROOT } from './lib.mjs';

const DIRS = 100;
const FILES_PER_DIR = 100;
const RUNS = 7;
const EDITS = 5;

// Reproducible: neither the developer's git config nor their identity takes part.
Object.assign(process.env, { GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' });
const identity = { GIT_AUTHOR_NAME: 'Bench', GIT_AUTHOR_EMAIL: 'bench@localhost', GIT_COMMITTER_NAME: 'Bench', GIT_COMMITTER_EMAIL: 'bench@localhost' };
const git = (cwd, ...args) => execFileSync('git', args, { cwd, env: { ...process.env, ...identity }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

const scratch = mkdtempSync(join(tmpdir(), 'pf-bench-turns-'));
try {
  // The module itself, bundled from its TypeScript (tsconfig paths reach the libraries' sources).
  const bundle = join(scratch, 'snapshots.mjs');
  await build({
    entryPoints: [join(ROOT, 'apps/serve/src/turns/snapshots.ts')],
    outfile: bundle,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    tsconfig: join(ROOT, 'tsconfig.base.json'),
    logLevel: 'warning',
  });
  const { Snapshots } = await import(pathToFileURL(bundle).href);
  const snapshots = new Snapshots({ tempDir: join(scratch, 'serve-tmp'), log: () => {} });

  const base = join(scratch, 'base');
  for (let d = 0; d < DIRS; d++) {
    mkdirSync(join(base, `dir${d}`), { recursive: true });
    for (let f = 0; f < FILES_PER_DIR; f++) writeFileSync(join(base, `dir${d}/file${f}.ts`), `export const value${f} = ${d * FILES_PER_DIR + f};\n// line two\n// line three\n`);
  }
  git(base, 'init', '-q', '-b', 'main');
  git(base, 'add', '-A');
  git(base, 'commit', '-q', '-m', 'base');

  /** A fresh checkout of the base with the edits of a turn: some files modified, some new. */
  const checkout = (name) => {
    const repo = join(scratch, name);
    git(scratch, 'clone', '-q', base, repo);
    for (let i = 0; i < EDITS; i++) {
      writeFileSync(join(repo, `dir${i * 17}/file${i}.ts`), `export const changed${i} = true;\n// line two\n`);
      writeFileSync(join(repo, `dir${i * 19}/new${i}.ts`), `export const added${i} = ${i};\n`);
    }
    return repo;
  };
  const timed = async (run) => {
    const start = performance.now();
    await run();
    return performance.now() - start;
  };

  const cold = [];
  let repo = '';
  for (let run = 0; run < RUNS; run++) {
    repo = checkout(`cold${run}`);
    execFileSync('sync'); // else the checkout's writeback competes with what is timed
    cold.push(await timed(() => snapshots.take(repo, 'refs/paneflow/turns/bench/0', 'cold', null)));
  }
  // A checkout's files and index are written in the same second: git trusts none of their stat
  // data (its racy-index rule) and hashes every file again, for `git stash create` and snapshots
  // alike, until a command rewrites the index later. The racy rows time that; the warm rows a
  // repository used since, whose index a `git status` a second later has rewritten.
  const racy = [];
  const racyStashes = [];
  for (let run = 0; run < RUNS; run++) {
    racy.push(await timed(() => snapshots.take(repo, 'refs/paneflow/turns/bench/racy', 'racy', null)));
    racyStashes.push(await timed(async () => git(repo, 'stash', 'create')));
  }
  await new Promise((resolve) => setTimeout(resolve, 1100));
  git(repo, 'status', '--porcelain');
  // git runs in child processes: the event loop should stay free while snapshots run.
  const loopDelay = monitorEventLoopDelay({ resolution: 1 });
  loopDelay.enable();
  const warm = [];
  const trees = [];
  const summaries = [];
  const stashes = [];
  let parent = null;
  let changed = 0;
  for (let run = 0; run < RUNS; run++) {
    warm.push(
      await timed(async () => {
        parent = (await snapshots.take(repo, `refs/paneflow/turns/bench/${run + 1}`, 'warm', parent)).commit;
      }),
    );
    trees.push(await timed(() => snapshots.tree(repo)));
    summaries.push(
      await timed(async () => {
        changed = (await snapshots.summary(repo, 'HEAD', parent)).files_changed;
      }),
    );
  }
  loopDelay.disable();
  for (let run = 0; run < RUNS; run++) stashes.push(await timed(async () => git(repo, 'stash', 'create')));

  const stash = median(stashes);
  const figures = {
    'take(), cold: first snapshot of a checkout': median(cold),
    'take(), racy: index written with the files': median(racy),
    'git stash create, racy': median(racyStashes),
    'take(), warm: later snapshots': median(warm),
    'tree(), warm': median(trees),
    [`summary(), HEAD → snapshot (${changed} files)`]: median(summaries),
    'git stash create (no untracked files)': stash,
  };
  console.log(`${DIRS * FILES_PER_DIR} tracked files, ${EDITS} modified, ${EDITS} untracked; medians of ${RUNS} runs`);
  console.log(`event-loop delay during the warm snapshots, trees and summaries: p50 ${(loopDelay.percentile(50) / 1e6).toFixed(1)} ms, p99 ${(loopDelay.percentile(99) / 1e6).toFixed(1)} ms, max ${(loopDelay.max / 1e6).toFixed(1)} ms`);
  for (const [name, ms] of Object.entries(figures)) console.log(`${name.padEnd(48)} ${ms.toFixed(1).padStart(7)} ms  ${(ms / stash).toFixed(2)}× stash create`);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
