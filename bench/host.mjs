// paneflow-host against tmux, in the same run:
//  1. throughput: `cat` of a 64 MB file of agent-like output in one pane, until the terminal has
//     consumed all of it (the host: the session's `exited` frame, sent after the final drain and
//     parse; tmux: `wait-for` signalled when cat has written everything);
//  2. latency: a program in a pane writes an OSC 7501 report stamped with the monotonic clock; a
//     follower of `agent.follow` receives the status frame (p50/p99 over 500 reports), on a quiet
//     host and while another pane floods it;
//  3. the host's part of a keystroke's echo: `session.input` to a `cat` until the echo comes back
//     on a `session.output` stream (p50/p99 over 300 keys).
// Run: npm run bench:host   (builds the host first; tmux comes from Debian's packages)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, hasCommand, killTmux, median, percentile, reportFigures, SHORT, startHost } from './lib.mjs';

// The short form (`npm run bench:budgets`): no latency part. Both take the median of three runs:
// one run's ratio moved between 1.36× and 1.60× on a quiet machine, as either side's run did.
const SIZE = 64 * 1024 * 1024;
const RUNS = 3;
const REPORTS = 500;
const KEYS = 300;

function agentOutput() {
  const lines = [
    '\x1b[1m\x1b[36m⏺\x1b[0m Reading \x1b[4msrc/server/routes.ts\x1b[0m (412 lines)\r\n',
    '  \x1b[2m│\x1b[0m  const user = await db.users.find({ id: req.params[0] });\r\n',
    '\x1b[32m+\x1b[0m   if (!user) return res.status(404).json({ error: "not found" });\r\n',
    '  PASS  test/routes.test.ts (3.2 s) ✓ 41 tests, 日本語のコメント\r\n',
    '\x1b[38;5;208m✻ Thinking…\x1b[39m (esc to interrupt)\r\n',
  ];
  const parts = [];
  for (let size = 0, i = 0; size < SIZE; i++) {
    const line = lines[i % lines.length];
    parts.push(line);
    size += Buffer.byteLength(line);
  }
  return Buffer.from(parts.join('')).subarray(0, SIZE);
}

const dir = mkdtempSync(join(tmpdir(), 'pf-bench-data-'));
const file = join(dir, 'output.txt');
writeFileSync(file, agentOutput());
const host = startHost();
const results = {};

try {
  const client = await connect(host.socket);
  await client.request('host.hello', { client: 'bench', protocol: 1, secret: host.secret });
  await client.request('agent.follow');
  const exited = new Map();
  const statusListeners = [];
  client.onFrame((frame) => {
    if (frame.type === 'lifecycle' && frame.lifecycle === 'exited') exited.get(frame.session)?.();
    if (frame.type === 'status') for (const listener of statusListeners) listener(frame);
  });
  const base = { workspace_id: 'bench', surface_id: 1, cwd: dir, env: {}, cols: 80, rows: 24 };

  const hostSeconds = [];
  for (let r = 0; r < RUNS; r++) {
    const started = process.hrtime.bigint();
    const { session } = await client.request('session.create', { ...base, argv: ['cat', file] });
    await new Promise((resolve) => exited.set(session, resolve));
    hostSeconds.push(Number(process.hrtime.bigint() - started) / 1e9);
    await client.request('session.remove', { session });
  }
  results.host = SIZE / 1e6 / median(hostSeconds);

  if (hasCommand('tmux')) {
    const tmuxSeconds = [];
    for (let r = 0; r < RUNS; r++) {
      const name = `pf-bench-${process.pid}-${r}`;
      const started = process.hrtime.bigint();
      spawnSync('tmux', ['-L', name, 'new-session', '-d', '-x', '80', '-y', '24', `cat ${file}; tmux -L ${name} wait-for -S done`]);
      spawnSync('tmux', ['-L', name, 'wait-for', 'done']);
      tmuxSeconds.push(Number(process.hrtime.bigint() - started) / 1e9);
      killTmux(name);
    }
    results.tmux = SIZE / 1e6 / median(tmuxSeconds);
  }

  if (!SHORT) {
    // Latency: the pane stamps each report with process.hrtime (CLOCK_MONOTONIC, shared by every
    // process on the machine) in its msg; the follower subtracts on arrival. Measured on a quiet
    // host, then while another pane floods it (`cat` of the file in a loop): what an agent's state costs to reach a face while a build log pours out.
    const stamper = `let n = 0; const t = setInterval(() => {
      const stamp = Buffer.from(String(process.hrtime.bigint())).toString('base64');
      process.stdout.write('\\x1b]7501;state=working:msg=' + stamp + '\\x1b\\\\');
      if (++n === ${REPORTS}) clearInterval(t);
    }, 5);`;
    // Two reports in one PTY read share one status frame; each frame is timed by its latest report.
    let latencies = [];
    statusListeners.push((frame) => {
      const message = frame.declared_status?.message;
      if (message) latencies.push(Number(process.hrtime.bigint() - BigInt(message)) / 1e6);
    });
    const reportLatency = async () => {
      latencies = [];
      const { session } = await client.request('session.create', { ...base, argv: [process.execPath, '-e', stamper] });
      await new Promise((resolve) => exited.set(session, resolve));
      await client.request('session.remove', { session });
      return { frames: latencies.length, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
    };
    results.quiet = await reportLatency();
    const flood = await client.request('session.create', { ...base, argv: ['sh', '-c', `while :; do cat ${file}; done`] });
    results.flooded = await reportLatency();
    await client.request('session.stop', { session: flood.session });

    // The host's part of a keystroke's echo: `session.input` of one key to a `cat`, until its
    // echo comes back on a `session.output` stream (what an attach client's mirror follows).
    const { session: typing } = await client.request('session.create', { ...base, argv: ['cat'] });
    const stream = await connect(host.socket);
    await stream.request('host.hello', { client: 'bench', protocol: 1, secret: host.secret });
    let echoed = '';
    let echo = () => undefined;
    stream.onFrame((frame) => {
      if (frame.type !== 'output_data') return;
      echoed += Buffer.from(frame.data, 'base64').toString('latin1');
      echo();
    });
    const { output_offset } = await client.request('session.attach', { session: typing });
    await stream.request('session.output', { session: typing, offset: output_offset, follow: true, keepalive: false });
    const echoes = [];
    for (let i = 0; i < KEYS; i++) {
      const key = `k${i}q`;
      echoed = '';
      const started = process.hrtime.bigint();
      const shown = new Promise((resolve) => (echo = () => echoed.includes(key) && resolve()));
      // The reply comes after the terminals' thread took the keystroke as a person's: not waited for.
      const replied = client.request('session.input', { session: typing, text: key, origin: 'user' });
      await shown;
      echoes.push(Number(process.hrtime.bigint() - started) / 1e6);
      await replied;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    results.echo = { p50: percentile(echoes, 50), p99: percentile(echoes, 99) };
    stream.close();
  }
  client.close();
} finally {
  host.stop();
  rmSync(dir, { recursive: true, force: true });
}

console.log(`throughput, cat of ${SIZE / 1024 / 1024} MB in an 80x24 pane (median of ${RUNS}):`);
console.log(`  paneflow-host  ${results.host.toFixed(1).padStart(7)} MB/s`);
if (results.tmux) {
  console.log(`  tmux           ${results.tmux.toFixed(1).padStart(7)} MB/s`);
  console.log(`  ratio host/tmux ${(results.host / results.tmux).toFixed(2)}`);
} else console.log('  tmux: not installed (apt-get install tmux), no ratio');
reportFigures({ host: results.host, tmux: results.tmux ?? null });
if (!SHORT) console.log(`keystroke → echo through the host alone (session.input to a cat, its output_data back), ${KEYS} keys: p50 ${results.echo.p50.toFixed(2)} ms, p99 ${results.echo.p99.toFixed(2)} ms`);
for (const [label, latency] of SHORT ? [] : [['quiet host', results.quiet], ['another pane flooding', results.flooded]]) {
  console.log(
    `report → follower latency, ${REPORTS} reports 5 ms apart, ${label} (${latency.frames} frames): p50 ${latency.p50.toFixed(2)} ms, p99 ${latency.p99.toFixed(2)} ms`,
  );
}
