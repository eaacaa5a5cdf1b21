// The speed budgets (issue 34): the short form of each bench that holds one, run here one after the
// other, each budget printed as one line: figure, anchor, ratio, target, PASS or OVER. Speed never
// fails a build: this exits 0 whatever it finds, and says so. The full benches stay as they are.
// Run: npm run bench:budgets   (builds first; needs tmux for the anchors it gives)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hasCommand, ROOT } from './lib.mjs';

const scratch = mkdtempSync(join(tmpdir(), 'pf-budgets-'));

/** Runs one bench in its short form; its figures, or null (and why) when it could not run. */
function figures(bench, env = {}) {
  const file = join(scratch, `${bench}.json`);
  const started = Date.now();
  const run = spawnSync(process.execPath, [join(ROOT, 'bench', `${bench}.mjs`)], {
    env: { ...process.env, ...env, BENCH_SHORT: '1', BENCH_JSON: file },
    encoding: 'utf8',
    timeout: 300_000,
  });
  process.stderr.write(`  bench/${bench}.mjs: ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    process.stderr.write(`  bench/${bench}.mjs gave no figures (exit ${run.status}): ${(run.stderr || run.stdout).trim().split('\n').slice(-3).join(' / ')}\n`);
    return null;
  }
}

const lines = [];
/**
 * One budget: `figure` against `anchor` (same unit), the ratio against `target`: at most it
 * (`most`), or at least it (`least`). A budget with no anchor compares the figure itself.
 */
function budget(name, { figure, anchor, unit, target, direction = 'most', digits = 1 }) {
  if (figure === undefined || figure === null) {
    lines.push({ name, text: 'not measured', verdict: 'SKIP' });
    return;
  }
  const value = anchor === undefined ? figure : figure / anchor;
  const pass = direction === 'most' ? value <= target : value >= target;
  const shown = (n) => `${n.toFixed(digits)} ${unit}`;
  const text =
    anchor === undefined
      ? `${shown(figure).padStart(14)}  ${''.padStart(24)}  target ${direction === 'most' ? '≤' : '≥'} ${target} ${unit}`
      : `${shown(figure).padStart(14)}  anchor ${shown(anchor).padStart(14)}  ${value.toFixed(2).padStart(5)}×  target ${direction === 'most' ? '≤' : '≥'} ${target}×`;
  lines.push({ name, text, verdict: pass ? 'PASS' : 'OVER' });
}

try {
  process.stderr.write('running the short benches (about a minute and a half):\n');
  const cli = figures('cli');
  budget('paneflow ls ÷ node -e 0', { figure: cli?.ls.ms, anchor: cli?.ls.nodeMs, unit: 'ms', target: 1.2 });
  budget('paneflow status ÷ node -e 0', { figure: cli?.status.ms, anchor: cli?.status.nodeMs, unit: 'ms', target: 1.2 });

  const tmux = hasCommand('tmux');
  const attach = tmux ? figures('attach') : null;
  budget('attach echo p50 ÷ tmux', { figure: attach?.paneflow.p50, anchor: attach?.tmux.p50, unit: 'ms', target: 1.5, digits: 2 });
  budget('attach echo p99 ÷ tmux', { figure: attach?.paneflow.p99, anchor: attach?.tmux.p99, unit: 'ms', target: 1.5, digits: 2 });
  const cpu = (share) => attach && share * 100;
  budget('CPU, one pane streaming ÷ tmux', { figure: cpu(attach?.paneflow.streamCpu), anchor: cpu(attach?.tmux.streamCpu), unit: '% core', target: 2 });
  budget('CPU, 8 agents working ÷ tmux', { figure: cpu(attach?.paneflow.agents.cpu), anchor: cpu(attach?.tmux.agents.cpu), unit: '% core', target: 2 });
  budget('attach wakeups, all idle', { figure: attach?.paneflow.idleWakeups, unit: '/s', target: 0 });

  // Many machines (issue 32): `ps` with two linked machines against one with none.
  const machines = figures('machines');
  budget('paneflow ps, 2 machines linked ÷ none', { figure: machines?.machines_ps.fleet_ms, anchor: machines?.machines_ps.local_ms, unit: 'ms', target: 2 });

  const host = figures('host');
  budget('cat 64 MB, host ÷ tmux', { figure: host?.host, anchor: host?.tmux ?? undefined, unit: 'MB/s', target: 1.5, direction: 'least' });

  // A newcomer's machine has no libjemalloc2: the host on glibc's malloc.
  const memory = figures('scale', { PANEFLOW_HOST_JEMALLOC: '0' });
  budget('host RSS after closing 32 busy panes ÷ its start, glibc malloc', { figure: memory?.after, anchor: memory?.start, unit: 'MiB', target: 1.5, digits: 0 });
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

const width = Math.max(...lines.map((l) => l.name.length));
console.log(`${'budget'.padEnd(width)}  ${'figure'.padStart(14)}`);
for (const line of lines) console.log(`${line.name.padEnd(width)}  ${line.text}  ${line.verdict}`);
const count = (verdict) => lines.filter((l) => l.verdict === verdict).length;
console.log(`${count('PASS')} within budget, ${count('OVER')} over, ${count('SKIP')} not measured (speed never fails a build: exit 0)`);
