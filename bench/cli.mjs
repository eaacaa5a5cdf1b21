// The CLI's wall time, as a script pays it: `paneflow ls` and `paneflow status <target>` (median
// of 20 runs each) against `node -e 0` and `tmux list-panes`, all in the same run.
// Target: `paneflow ls` within 1.5× of `node -e 0`.
// Run: npm run bench:cli
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { call, hasCommand, medianRunMs, ROOT, startServe } from './lib.mjs';

const RUNS = 20;
const CLI = join(ROOT, 'apps/cli/dist/paneflow.cjs');

const time = (command, args, env) => medianRunMs(command, args, { env, runs: RUNS });

const instance = startServe();
const results = {};
try {
  const { surface_id } = await call(instance.socket, 'workspace.create', { cwd: instance.dir });
  results.node = time(process.execPath, ['-e', '0'], instance.env);
  results.ls = time(process.execPath, [CLI, 'ls'], instance.env);
  results.status = time(process.execPath, [CLI, 'status', String(surface_id)], instance.env);
  if (hasCommand('tmux')) {
    const name = `pf-bench-${process.pid}`;
    spawnSync('tmux', ['-L', name, 'new-session', '-d', 'sleep 60']);
    try {
      results.tmux = time('tmux', ['-L', name, 'list-panes'], instance.env);
    } finally {
      spawnSync('tmux', ['-L', name, 'kill-server']);
    }
  }
} finally {
  instance.stop();
}

const row = (label, ms) => `  ${label.padEnd(26)} ${ms.toFixed(1).padStart(6)} ms   ${(ms / results.node).toFixed(2)}× node -e 0`;
console.log(`median of ${RUNS} runs each:`);
console.log(row('node -e 0', results.node));
console.log(row('paneflow ls', results.ls));
console.log(row('paneflow status <target>', results.status));
if (results.tmux !== undefined) console.log(row('tmux list-panes', results.tmux));
else console.log('  tmux: not installed (apt-get install tmux)');
console.log(`target: paneflow ls within 1.5× node -e 0 (${(results.ls / results.node).toFixed(2)}×)`);
