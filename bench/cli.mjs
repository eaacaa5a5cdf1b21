// The CLI's wall time as a script pays it: each command run as a fresh process, timed from
// outside, alternating with `node -e 0` in pairs so that both see the same machine; the figure is
// the median of the per-pair ratios. `paneflow ls` and `paneflow status <target>` against a live
// instance, and `tmux list-panes` in the same run.
// Target: `paneflow ls` and `status` within 1.2× of `node -e 0` (`npm run bench:budgets`).
// Run: npm run bench:cli
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { againstNode, call, hasCommand, killTmux, reportFigures, ROOT, SHORT, startServe } from './lib.mjs';

const CLI = join(ROOT, 'apps/cli/dist/paneflow.cjs');

// A user's own home, as a script's call meets it.
const instance = startServe({}, { standardHome: true });
const results = {};
try {
  const { surface_id } = await call(instance.socket, 'workspace.create', { cwd: instance.dir });
  const pairs = SHORT ? 10 : 15;
  results['paneflow ls'] = againstNode(process.execPath, [CLI, 'ls'], { env: instance.env, pairs });
  results['paneflow status <target>'] = againstNode(process.execPath, [CLI, 'status', String(surface_id)], { env: instance.env, pairs });
  if (!SHORT) results['paneflow --help'] = againstNode(process.execPath, [CLI, '--help'], { env: instance.env });
  if (hasCommand('tmux') && !SHORT) {
    const name = `pf-bench-${process.pid}`;
    spawnSync('tmux', ['-L', name, '-f', '/dev/null', 'new-session', '-d', 'sleep 60']);
    try {
      results['tmux list-panes'] = againstNode('tmux', ['-L', name, 'list-panes'], { env: instance.env });
    } finally {
      killTmux(name);
    }
  }
} finally {
  instance.stop();
}

reportFigures({ ls: results['paneflow ls'], status: results['paneflow status <target>'] });
console.log(`${SHORT ? 10 : 15} alternating pairs each, medians:`);
for (const [label, r] of Object.entries(results)) {
  console.log(`  ${label.padEnd(26)} ${r.ms.toFixed(1).padStart(6)} ms   node -e 0 ${r.nodeMs.toFixed(1).padStart(6)} ms   ${r.ratio.toFixed(2)}×`);
}
if (!hasCommand('tmux')) console.log('  tmux: not installed (apt-get install tmux)');
console.log(`target: paneflow ls within 1.2× node -e 0 (${results['paneflow ls'].ratio.toFixed(2)}×)`);
