// `paneflow attach` beside `tmux attach`, in the same run, each in a PTY of this benchmark that
// plays the outer terminal: keystroke → echo latency (p50/p99), bytes written to the outer
// terminal per second and CPU while one pane streams output and while 8 agents work, and wakeups
// per second with everything idle. Target: attach ≤ 1.0× tmux on latency and bytes, 0 wakeups idle.
// Run: npm run bench:attach (needs tmux)
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AGENTS, agentCommand, alternatingEchoes, call, cpuSeconds, hasCommand, killTmux, outerTerminal, percentile, reportFigures, ROOT, SHORT, startServe, upAgents } from './lib.mjs';

const CLI = join(ROOT, 'apps/cli/dist/paneflow.cjs');
const COLS = 120;
const ROWS = 32;
// Keystrokes timed per face: the p99 of 60 was their slowest one, which moved by 2× between runs.
// The short form (`npm run bench:budgets`) times 120 and measures over 3 s windows.
const KEYS = SHORT ? 120 : 300;
const WINDOW_MS = SHORT ? 3000 : 5000;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

if (!hasCommand('tmux')) {
  console.log('tmux is not installed (apt-get install tmux)');
  process.exit(0);
}

/** CPU (ms) and voluntary context switches of these processes, from /proc. */
function usage(pids) {
  let cpu = 0;
  let switches = 0;
  for (const pid of pids) {
    try {
      cpu += cpuSeconds(pid) * 1000;
      switches += Number(/voluntary_ctxt_switches:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]);
    } catch {
      // gone
    }
  }
  return { cpu, switches };
}

/**
 * Bytes to the outer terminal per second and CPU (share of a core) over one window; with `servers`,
 * also theirs apart (`serverCpu`): paneflow's host and serve, which tmux's one server stands for.
 */
async function busyWindow(client, pids, servers = null) {
  await sleep(500);
  const bytes0 = client.bytes;
  const busy0 = usage(pids());
  const servers0 = servers && usage(servers);
  await sleep(WINDOW_MS);
  const busy1 = usage(pids());
  const servers1 = servers && usage(servers);
  const window = { bytes: (client.bytes - bytes0) / (WINDOW_MS / 1000), cpu: (busy1.cpu - busy0.cpu) / WINDOW_MS };
  return servers ? { ...window, serverCpu: (servers1.cpu - servers0.cpu) / WINDOW_MS } : window;
}

/** The pid a `status` subcommand of paneflow-host or paneflow-serve reports. */
const pidOf = (bin) => JSON.parse(spawnSync(process.execPath, [join(ROOT, bin), 'status'], { env: instance.env, encoding: 'utf8' }).stdout).pid;

async function measure(label, client, pids, startStream, stopStream) {
  // Keystroke → echo: typed into `cat` until the outer terminal shows it.
  const latencies = (await alternatingEchoes({ [label]: client }, KEYS))[label];
  client.term.write('\r');
  await sleep(500);
  const idle0 = usage(pids());
  await sleep(WINDOW_MS);
  const idle1 = usage(pids());
  startStream();
  const stream = await busyWindow(client, pids);
  stopStream();
  return {
    label,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    idleWakeups: (idle1.switches - idle0.switches) / (WINDOW_MS / 1000),
    streamBytes: stream.bytes,
    streamCpu: stream.cpu,
  };
}

// BENCH_PERF=FILE: the 8-agent window is recorded by `perf record` into FILE, with node's JIT
// symbols (--perf-basic-prof) in paneflow's processes; `node bench/perf-summary.mjs FILE` reads it.
const PERF = process.env.BENCH_PERF;
const instance = startServe({ PANEFLOW_IPC_SCRIPTING: '1', PANEFLOW_IPC_ORCHESTRATION: '1', ...(PERF ? { NODE_OPTIONS: '--perf-basic-prof --interpreted-frames-native-stack' } : {}) });
const tmuxName = `pf-bench-attach-${process.pid}`;
const results = [];
try {
  // Two panes side by side in both: `cat` to type into, and a shell that streams on demand.
  const up = await call(instance.socket, 'workspace.up', {
    name: 'bench',
    layout: 'even_h',
    panes: [
      { name: 'typing', cwd: instance.dir, command: 'exec cat', focus: true, env: {} },
      { name: 'stream', cwd: instance.dir, command: 'exec bash --norc --noprofile', focus: false, env: {} },
    ],
  });
  const streamPane = up.surfaces[1].surface_id;
  const sendStream = (text) => call(instance.socket, 'surface.send_text', { surface_id: streamPane, text, submit: true, scope: 'all' }).catch((error) => console.error('stream:', error.message));
  const paneflow = outerTerminal(process.execPath, [CLI, 'attach', 'bench'], instance.env, { cols: COLS, rows: ROWS });
  await paneflow.next('typing', 15_000).catch(() => undefined);
  await sleep(1000);
  results.push(
    await measure('paneflow attach', paneflow, () => [paneflow.term.pid], () => void sendStream('i=0; while :; do i=$((i+1)); echo "line $i"; sleep 0.002; done'), () => void call(instance.socket, 'surface.send_keystroke', { surface_id: streamPane, keystroke: 'ctrl-c', scope: 'all' })),
  );
  paneflow.term.kill();
  // The benches' team of agents (bench/lib.mjs), tiled in one window: what an outer terminal pays while a team works.
  await upAgents(instance, 'agents');
  const team = outerTerminal(process.execPath, [CLI, 'attach', 'agents'], instance.env, { cols: COLS, rows: ROWS });
  await team.next('agent-0', 15_000).catch(() => undefined);
  await sleep(2000);
  const servers = [pidOf('apps/host/dist/paneflow-host.cjs'), pidOf('apps/serve/dist/paneflow-serve.cjs')];
  const perf = PERF && spawn('perf', ['record', '-F', '1999', '-g', '-o', PERF, '-p', [team.term.pid, ...servers].join(',')], { stdio: 'ignore' });
  results[0].agents = await busyWindow(team, () => [team.term.pid], servers);
  if (perf) await new Promise((resolve) => perf.once('exit', resolve).kill('SIGINT'));
  team.term.kill();

  // The server's environment is every pane's: the fixture agents keep their conversations in the
  // instance's temp dir, as on paneflow's side, not in the user's ~/.claude.
  const tmuxEnv = { ...process.env, CLAUDE_CONFIG_DIR: instance.env.CLAUDE_CONFIG_DIR };
  spawnSync('tmux', ['-L', tmuxName, '-f', '/dev/null', 'new-session', '-d', '-x', String(COLS), '-y', String(ROWS), 'exec cat'], { env: tmuxEnv });
  spawnSync('tmux', ['-L', tmuxName, 'split-window', '-h', '-d', 'exec bash --norc --noprofile']);
  // -u: the client writes UTF-8 whatever the locale, as attach does.
  const tmuxClient = outerTerminal('tmux', ['-L', tmuxName, '-u', 'attach'], process.env, { cols: COLS, rows: ROWS });
  await sleep(1000);
  const serverPid = Number(spawnSync('tmux', ['-L', tmuxName, 'display-message', '-p', '#{pid}'], { encoding: 'utf8' }).stdout.trim());
  const tmuxSend = (keys) => spawnSync('tmux', ['-L', tmuxName, 'send-keys', '-t', '{right}', ...keys]);
  results.push(await measure('tmux attach', tmuxClient, () => [tmuxClient.term.pid, serverPid], () => tmuxSend(['i=0; while :; do i=$((i+1)); echo "line $i"; sleep 0.002; done', 'Enter']), () => tmuxSend(['C-c'])));
  tmuxClient.term.kill();
  spawnSync('tmux', ['-L', tmuxName, 'new-session', '-d', '-s', 'agents', '-x', String(COLS), '-y', String(ROWS), agentCommand], { env: tmuxEnv });
  for (let i = 1; i < AGENTS; i++) {
    spawnSync('tmux', ['-L', tmuxName, 'split-window', '-t', 'agents', '-d', agentCommand]);
    spawnSync('tmux', ['-L', tmuxName, 'select-layout', '-t', 'agents', 'tiled']);
  }
  const tmuxTeam = outerTerminal('tmux', ['-L', tmuxName, '-u', 'attach', '-t', 'agents'], process.env, { cols: COLS, rows: ROWS });
  await sleep(3000);
  results[1].agents = await busyWindow(tmuxTeam, () => [tmuxTeam.term.pid, serverPid]);
  tmuxTeam.term.kill();
} finally {
  killTmux(tmuxName);
  instance.stop();
}

const [own, ref] = results;
reportFigures({ paneflow: own, tmux: ref });
const row = (name, unit, f, digits = 1) => console.log(`  ${name.padEnd(34)} ${f(own).toFixed(digits).padStart(9)} ${f(ref).toFixed(digits).padStart(9)}  ${unit.padEnd(8)} ${f(ref) ? (f(own) / f(ref)).toFixed(2) + '×' : ''}`);
console.log(`${' '.repeat(36)}paneflow      tmux`);
row('keystroke → echo p50', 'ms', (r) => r.p50, 2);
row('keystroke → echo p99', 'ms', (r) => r.p99, 2);
row('bytes to the terminal, one pane streaming', 'KB/s', (r) => r.streamBytes / 1024);
row('CPU, one pane streaming (client; tmux: client + server)', '% core', (r) => r.streamCpu * 100);
row(`bytes to the terminal, ${AGENTS} agents working`, 'KB/s', (r) => r.agents.bytes / 1024);
row(`CPU, ${AGENTS} agents working (client; tmux: client + server)`, '% core', (r) => r.agents.cpu * 100);
// Not in the ratio above (the budget's): paneflow's servers, beside tmux's client + server.
console.log(`  ${`CPU, ${AGENTS} agents working, host + serve`.padEnd(34)} ${(own.agents.serverCpu * 100).toFixed(1).padStart(9)}`);
row('wakeups idle', '/s', (r) => r.idleWakeups);
