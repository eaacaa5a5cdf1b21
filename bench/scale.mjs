// Many agents on one machine: paneflow-host against tmux 3.3a in the same run.
//  1. memory: 32 panes each printing 1,000 agent-like lines a second for 30 s (tmux with
//     history-limit 10000); the server's RSS at start (no panes), loaded (the 32 panes still open),
//     the peak while the 32 are closed one by one, and after closing (2 s later);
//  2. throughput: `cat` of a 64 MB file in one pane, until the terminal has consumed it;
//  3. 64 panes through serve (48 shells, 16 fixture agents): `paneflow ls` wall time and the CPU
//     of host and serve over 10 s, idle, then with the 16 agents running a turn every 300 ms.
// Run: npm run bench:scale   (builds cli, serve and host first; tmux comes from Debian's packages)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, connect, cpuSeconds, hasCommand, killTmux, median, reportFigures, ROOT, rssMiB, SHORT, startHost, startServe } from './lib.mjs';

const PANES = 32;
const LINES_PER_S = 1000;
// The short form (`npm run bench:budgets`): 8 s of load, the host's memory only.
const SECONDS = SHORT ? 8 : 30;
const CAT_BYTES = 64 * 1024 * 1024;
const CLI = join(ROOT, 'apps/cli/dist/paneflow.cjs');
const AGENT = join(ROOT, 'fixtures/agent.mjs');

const scratch = mkdtempSync(join(tmpdir(), 'pf-bench-scale-'));
// One pane's load: agent-like lines with colours, each one different, at a steady rate.
const printer = join(scratch, 'printer.cjs');
writeFileSync(
  printer,
  `const lines = [
  (i) => '\\x1b[1m\\x1b[36m⏺\\x1b[0m Reading \\x1b[4msrc/server/routes' + i + '.ts\\x1b[0m (' + (i % 977) + ' lines)\\r\\n',
  (i) => '  \\x1b[2m│\\x1b[0m  const user' + i + ' = await db.users.find({ id: req.params[' + (i % 7) + '] });\\r\\n',
  (i) => '\\x1b[32m+\\x1b[0m   if (!user) return res.status(404).json({ error: "not found ' + i + '" });\\r\\n',
  (i) => '  PASS  test/routes.test.ts (' + (i % 9) + '.2 s) ✓ ' + i + ' tests, 日本語のコメント\\r\\n',
  (i) => '\\x1b[38;5;208m✻ Thinking…\\x1b[39m (esc to interrupt) ' + i + '\\r\\n',
];
const total = ${LINES_PER_S * SECONDS};
const started = Date.now();
let n = 0;
const tick = setInterval(() => {
  const due = Math.min(total, Math.floor(((Date.now() - started) * ${LINES_PER_S}) / 1000));
  let out = '';
  for (; n < due; n++) out += lines[n % lines.length](n);
  if (out) process.stdout.write(out);
  if (n >= total) clearInterval(tick);
}, 10);
setInterval(() => {}, 60000);
`,
);
const catFile = join(scratch, 'cat.txt');
{
  const parts = [];
  for (let size = 0, i = 0; size < CAT_BYTES; i++) {
    const line = `\x1b[1m\x1b[36m⏺\x1b[0m Reading \x1b[4msrc/server/routes${i}.ts\x1b[0m (412 lines) 日本語 ✓ ${i % 13}\r\n`;
    parts.push(line);
    size += Buffer.byteLength(line);
  }
  writeFileSync(catFile, Buffer.from(parts.join('')).subarray(0, CAT_BYTES));
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const mib = (value) => `${value.toFixed(0).padStart(5)} MiB`;

/** Samples a process's RSS every 20 ms while `work` runs; the largest value seen. */
async function peakWhile(pid, work) {
  let peak = rssMiB(pid);
  const timer = setInterval(() => (peak = Math.max(peak, rssMiB(pid))), 20);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  return Math.max(peak, rssMiB(pid));
}

async function tmuxMemory() {
  const name = `pf-bench-scale-${process.pid}`;
  const conf = join(scratch, 'tmux.conf');
  writeFileSync(conf, 'set -g history-limit 10000\n');
  const tmux = (...args) => spawnSync('tmux', ['-L', name, '-f', conf, ...args], { encoding: 'utf8' });
  tmux('new-session', '-d', '-s', 'idle', '-x', '80', '-y', '24', 'sleep 3600');
  const pid = Number(tmux('display-message', '-p', '#{pid}').stdout.trim());
  try {
    await sleep(1000);
    const result = { start: rssMiB(pid) };
    tmux('new-session', '-d', '-s', 'load', '-x', '80', '-y', '24', `node ${printer}`);
    for (let i = 1; i < PANES; i++) tmux('new-window', '-d', '-t', 'load', `node ${printer}`);
    let peakLoad = 0;
    const end = Date.now() + (SECONDS + 3) * 1000;
    while (Date.now() < end) {
      peakLoad = Math.max(peakLoad, rssMiB(pid));
      await sleep(250);
    }
    result.loaded = rssMiB(pid);
    result.peakLoad = Math.max(peakLoad, result.loaded);
    result.closingPeak = await peakWhile(pid, async () => {
      for (let i = 0; i < PANES; i++) tmux('kill-window', '-t', 'load:^');
    });
    await sleep(2000);
    result.after = rssMiB(pid);
    return result;
  } finally {
    killTmux(name);
  }
}

async function hostMemory() {
  const host = startHost();
  try {
    const client = await connect(host.socket);
    await client.request('host.hello', { client: 'bench', protocol: 1, secret: host.secret });
    const { pid } = await client.request('host.status');
    await sleep(1000);
    const result = { start: rssMiB(pid) };
    const base = { workspace_id: 'bench', cwd: scratch, env: {}, cols: 80, rows: 24 };
    const sessions = [];
    for (let i = 0; i < PANES; i++) sessions.push((await client.request('session.create', { ...base, surface_id: i + 1, argv: [process.execPath, printer] })).session);
    let peakLoad = 0;
    const end = Date.now() + (SECONDS + 3) * 1000;
    while (Date.now() < end) {
      peakLoad = Math.max(peakLoad, rssMiB(pid));
      await sleep(250);
    }
    // Every line printed has been parsed: the last one is there to read.
    const last = await client.request('session.read', { session: sessions[0], lines: 1 });
    result.lastLine = last.text;
    result.kept = last.total_lines;
    result.loaded = rssMiB(pid);
    result.peakLoad = Math.max(peakLoad, result.loaded);
    result.closingPeak = await peakWhile(pid, async () => {
      for (const session of sessions) {
        await client.request('session.stop', { session });
        await client.request('session.remove', { session });
      }
    });
    await sleep(2000);
    result.after = rssMiB(pid);
    client.close();
    return result;
  } finally {
    host.stop();
  }
}

async function hostThroughput() {
  const host = startHost();
  try {
    const client = await connect(host.socket);
    await client.request('host.hello', { client: 'bench', protocol: 1, secret: host.secret });
    await client.request('agent.follow');
    let done;
    client.onFrame((frame) => frame.type === 'lifecycle' && frame.lifecycle === 'exited' && done?.());
    const started = process.hrtime.bigint();
    const exited = new Promise((resolve) => (done = resolve));
    await client.request('session.create', { workspace_id: 'bench', surface_id: 1, cwd: scratch, env: {}, cols: 80, rows: 24, argv: ['cat', catFile] });
    await exited;
    client.close();
    return CAT_BYTES / 1e6 / (Number(process.hrtime.bigint() - started) / 1e9);
  } finally {
    host.stop();
  }
}

function tmuxThroughput() {
  const name = `pf-bench-scale-cat-${process.pid}`;
  const started = process.hrtime.bigint();
  spawnSync('tmux', ['-L', name, '-f', '/dev/null', 'new-session', '-d', '-x', '80', '-y', '24', `cat ${catFile}; tmux -L ${name} wait-for -S done`]);
  spawnSync('tmux', ['-L', name, 'wait-for', 'done']);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  killTmux(name);
  return CAT_BYTES / 1e6 / seconds;
}

/** `paneflow ls` wall times (ms) and host and serve CPU (% of one core) over `seconds`. */
async function underLoad(instance, pids, seconds) {
  const before = pids.map(cpuSeconds);
  const started = Date.now();
  const times = [];
  while (Date.now() - started < seconds * 1000) {
    const t0 = process.hrtime.bigint();
    const ls = spawnSync(process.execPath, [CLI, 'ls'], { env: instance.env });
    if (ls.status !== 0) throw new Error(`paneflow ls failed: ${ls.stderr}`);
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    await sleep(300);
  }
  const elapsed = (Date.now() - started) / 1000;
  const cpu = pids.map((pid, i) => ((cpuSeconds(pid) - before[i]) / elapsed) * 100);
  return { lsMedian: median(times), lsMax: Math.max(...times), hostCpu: cpu[0], serveCpu: cpu[1] };
}

async function fleet() {
  const go = join(scratch, 'go');
  const instance = startServe({ PANEFLOW_IPC_ORCHESTRATION: '1' });
  try {
    const agent = `sh -c 'while [ ! -e ${go} ]; do sleep 0.2; done; exec node ${AGENT} --auto 300 --work-ms 200'`;
    for (let w = 0; w < 2; w++) {
      const panes = Array.from({ length: 32 }, (_, i) => ({ cwd: scratch, focus: i === 0, env: {}, ...(w === 1 && i < 16 ? { command: agent } : {}) }));
      await call(instance.socket, 'workspace.up', { name: `scale-${w}`, layout: 'tiled', panes });
    }
    const hostPid = JSON.parse(spawnSync(process.execPath, [join(ROOT, 'apps/host/dist/paneflow-host.cjs'), 'status'], { env: instance.env, encoding: 'utf8' }).stdout).pid;
    const servePid = JSON.parse(spawnSync(process.execPath, [join(ROOT, 'apps/serve/dist/paneflow-serve.cjs'), 'status'], { env: instance.env, encoding: 'utf8' }).stdout).pid;
    await sleep(3000);
    const idle = await underLoad(instance, [hostPid, servePid], 10);
    writeFileSync(go, '');
    await sleep(2000);
    const busy = await underLoad(instance, [hostPid, servePid], 10);
    return { idle, busy };
  } finally {
    instance.stop();
  }
}

const ratio = (a, b) => (b ? `  ${(a / b).toFixed(2)}x` : '');
try {
  const tmux = hasCommand('tmux');
  if (!tmux) console.log('tmux: not installed (apt-get install tmux), no ratios');
  const h = await hostMemory();
  reportFigures({ start: h.start, loaded: h.loaded, after: h.after });
  const t = tmux && !SHORT ? await tmuxMemory() : null;
  console.log(`memory, ${PANES} panes × ${LINES_PER_S} lines/s for ${SECONDS} s at 80x24 (RSS of the server process; tmux history-limit 10000):`);
  console.log(`                       paneflow-host       tmux   host/tmux`);
  for (const [label, key] of [
    ['start', 'start'],
    ['loaded', 'loaded'],
    ['peak under load', 'peakLoad'],
    ['peak while closing', 'closingPeak'],
    ['after closing', 'after'],
  ]) {
    console.log(`  ${label.padEnd(20)} ${mib(h[key])}  ${t ? mib(t[key]) : '      -'}${t ? ratio(h[key], t[key]) : ''}`);
  }
  console.log(`  host: closing peak / loaded ${(h.closingPeak / h.loaded).toFixed(2)}, after closing / start ${(h.after / h.start).toFixed(2)}; lines kept per pane ${h.kept}`);
  if (!SHORT) {
    const hostCat = await hostThroughput();
    const tmuxCat = tmux ? tmuxThroughput() : null;
    console.log(`throughput, cat of ${CAT_BYTES / 1024 / 1024} MB in one 80x24 pane: host ${hostCat.toFixed(1)} MB/s${tmuxCat ? `, tmux ${tmuxCat.toFixed(1)} MB/s, host/tmux ${(hostCat / tmuxCat).toFixed(2)}` : ''}`);
    const { idle, busy } = await fleet();
    console.log('64 panes through serve (48 shells, 16 fixture agents), 10 s each:');
    console.log('                      paneflow ls median / max   host CPU   serve CPU');
    for (const [label, r] of [
      ['idle', idle],
      ['16 agents working', busy],
    ]) {
      console.log(`  ${label.padEnd(18)} ${r.lsMedian.toFixed(0).padStart(6)} / ${r.lsMax.toFixed(0).padStart(4)} ms     ${r.hostCpu.toFixed(1).padStart(5)} %    ${r.serveCpu.toFixed(1).padStart(5)} %`);
    }
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
