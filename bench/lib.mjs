// Shared by the benchmarks: a temp instance home, a raw JSON-RPC connection, statistics.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const ROOT = join(import.meta.dirname, '..');

/** `npm run bench:budgets` runs each bench in its short form (BENCH_SHORT=1)… */
export const SHORT = process.env.BENCH_SHORT === '1';
/** …and reads its figures from the JSON file BENCH_JSON names. */
export function reportFigures(figures) {
  if (process.env.BENCH_JSON) writeFileSync(process.env.BENCH_JSON, JSON.stringify(figures));
}
export const HOST_BIN = join(ROOT, 'apps/host/dist/paneflow-host.cjs');
export const SERVE_BIN = join(ROOT, 'apps/serve/dist/paneflow-serve.cjs');

/** A host in a temp home; `secret` is what its `host.hello` wants; `stop()` ends it and removes the home. */
export function startHost() {
  const dir = mkdtempSync(join(tmpdir(), 'pf-bench-'));
  // CLAUDE_CONFIG_DIR: the fixture agent keeps its conversations there, never in the user's ~/.claude.
  const env = { ...process.env, PANEFLOW_HOME: join(dir, 'home'), XDG_RUNTIME_DIR: join(dir, 'run'), CLAUDE_CONFIG_DIR: join(dir, 'claude') };
  const started = spawnSync(process.execPath, [HOST_BIN, 'start'], { env, encoding: 'utf8' });
  if (started.status !== 0) throw new Error(started.stderr);
  const info = JSON.parse(started.stdout);
  return {
    env,
    socket: info.endpoint,
    secret: readFileSync(join(dir, 'home/host/secret'), 'utf8'),
    stop() {
      spawnSync(process.execPath, [HOST_BIN, 'stop', '--force'], { env });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** serve (and through it a host) in a temp home, with `extraEnv`; `stop()` ends both. */
export function startServe(extraEnv = {}, { standardHome = false } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'pf-bench-'));
  // standardHome: the home a user has (no PANEFLOW_HOME, so the runtime directory needs no digest of it).
  const home = standardHome ? { PANEFLOW_HOME: undefined, XDG_STATE_HOME: join(dir, 'state') } : { PANEFLOW_HOME: join(dir, 'home') };
  const env = { ...process.env, ...home, XDG_RUNTIME_DIR: join(dir, 'run'), PANEFLOW_CONFIG: join(dir, 'none.json'), CLAUDE_CONFIG_DIR: join(dir, 'claude'), ...extraEnv };
  const started = spawnSync(process.execPath, [SERVE_BIN, 'start'], { env, encoding: 'utf8' });
  if (started.status !== 0) throw new Error(started.stderr);
  return {
    dir,
    env,
    socket: JSON.parse(started.stdout).endpoint,
    stop() {
      spawnSync(process.execPath, [SERVE_BIN, 'stop', '--drain-ms', '100'], { env });
      spawnSync(process.execPath, [HOST_BIN, 'stop', '--force'], { env });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** One request on a connection of its own, as the public socket wants. */
export async function call(path, method, params = {}) {
  const connection = await connect(path);
  try {
    return await connection.request(method, params);
  } finally {
    connection.close();
  }
}

/** A newline-delimited JSON-RPC connection: `request` resolves results, `onFrame` gets the rest. */
export async function connect(path) {
  const socket = createConnection(path);
  await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const pending = new Map();
  const frameListeners = [];
  let buffer = '';
  let nextId = 1;
  socket.on('data', (chunk) => {
    buffer += chunk;
    for (let nl = buffer.indexOf('\n'); nl !== -1; nl = buffer.indexOf('\n')) {
      const message = JSON.parse(buffer.slice(0, nl));
      buffer = buffer.slice(nl + 1);
      if (message.jsonrpc && pending.has(message.id)) {
        const { resolve, reject } = pending.get(message.id);
        pending.delete(message.id);
        if (message.error) reject(new Error(message.error.message));
        else resolve(message.result);
      } else for (const listener of frameListeners) listener(message);
    }
  });
  // A connection the other side closes fails what still waits on it, rather than leaving it hanging.
  socket.on('close', () => {
    for (const { reject } of pending.values()) reject(new Error(`${path}: connection closed`));
    pending.clear();
  });
  return {
    request(method, params = {}) {
      const id = nextId++;
      socket.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
      return new Promise((resolve, reject) => pending.set(id, { resolve, reject }));
    },
    onFrame: (listener) => frameListeners.push(listener),
    close: () => socket.destroy(),
  };
}

export function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

export function median(values) {
  return percentile(values, 50);
}

export function hasCommand(name) {
  return spawnSync('sh', ['-c', `command -v ${name}`]).status === 0;
}

/**
 * A command's wall time as a script pays it, against `node -e 0`: each a fresh process, timed from
 * outside, run alternately in `pairs` pairs (after one warm-up pair) so that both see the same
 * machine. Medians of each, and the median of the per-pair ratios. Timing all of one and then all
 * of the other lets load and caches drift between them; on a busy machine that flattered a ratio.
 * The command must exit 0, and print nothing on stdout when `silent`.
 */
export function againstNode(command, args, { env, input, pairs = 15, silent = false }) {
  const run = (cmd, argv) => {
    const start = process.hrtime.bigint();
    const result = spawnSync(cmd, argv, { env, input, stdio: ['pipe', 'pipe', 'pipe'] });
    if (result.status !== 0) throw new Error(`${cmd} ${argv.join(' ')} failed (${result.status}): ${result.stderr}`);
    if (silent && result.stdout.length > 0) throw new Error(`${cmd} ${argv.join(' ')} printed ${result.stdout}`);
    return Number(process.hrtime.bigint() - start) / 1e6;
  };
  const times = [];
  const nodeTimes = [];
  const ratios = [];
  for (let i = 0; i <= pairs; i++) {
    const node = run(process.execPath, ['-e', '0']);
    const own = run(command, args);
    if (i === 0) continue;
    times.push(own);
    nodeTimes.push(node);
    ratios.push(own / node);
  }
  return { ms: median(times), nodeMs: median(nodeTimes), ratio: median(ratios) };
}

/** A process's resident memory in MiB (0 once it is gone). */
export function rssMiB(pid) {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/**
 * CPU time a process's threads have run, in seconds, to the nanosecond: the scheduler's own count
 * (`/proc/<pid>/task/<tid>/schedstat`), not `stat`'s clock ticks of 10 ms, against which tmux's
 * share of a short window was often none or one. A thread that ended in between takes its time
 * along; the processes measured keep theirs (Node's pool and V8's workers live as long as it).
 */
export function cpuSeconds(pid) {
  let nanoseconds = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      nanoseconds += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // the thread ended
    }
  }
  return nanoseconds / 1e9;
}

/**
 * The benches' team: AGENTS fixture agents, each taking a turn by itself 1.5 s after the last
 * (working for 400 ms, then done: none of its tasks asks a question). `agentCommand` runs one (in
 * tmux too); `upAgents` tiles them in one workspace of `instance`.
 */
export const AGENTS = 8;
export const agentCommand = `exec ${process.execPath} ${join(ROOT, 'fixtures/agent.mjs')} --auto 1500 --work-ms 400`;
export function upAgents(instance, name) {
  return call(instance.socket, 'workspace.up', {
    name,
    layout: 'tiled',
    panes: Array.from({ length: AGENTS }, (_, i) => ({ name: `agent-${i}`, cwd: instance.dir, command: agentCommand, focus: i === 0, env: {} })),
  });
}

/** Ends the tmux server of `-L name`, and removes the socket file tmux 3.3a leaves behind (`$TMUX_TMPDIR`, else /tmp, then `tmux-UID`). */
export function killTmux(name) {
  spawnSync('tmux', ['-L', name, 'kill-server'], { stdio: 'ignore' });
  rmSync(join(process.env.TMUX_TMPDIR || '/tmp', `tmux-${process.getuid()}`, name), { force: true });
}

const pty = createRequire(import.meta.url)('node-pty');

/**
 * A terminal client in a PTY of the bench's, which plays its outer terminal: what the client
 * writes there is counted (`bytes`) and searched (`next`).
 */
export function outerTerminal(file, args, env, { cols = 120, rows = 32 } = {}) {
  const term = pty.spawn(file, args, { name: 'xterm-256color', cols, rows, env: { ...env, TERM: 'xterm-256color' } });
  let bytes = 0;
  let seen = '';
  let waiter = null;
  term.onData((data) => {
    bytes += Buffer.byteLength(data);
    seen = (seen + data).slice(-4096);
    if (waiter && seen.includes(waiter.text)) waiter.found();
  });
  return {
    term,
    get bytes() {
      return bytes;
    },
    /** Resolves once `text` has been written since the call (the next call replaces this one's wait). */
    next(text, timeoutMs = 5000) {
      seen = '';
      return new Promise((resolve, reject) => {
        const mine = {
          text,
          found: () => {
            waiter = null;
            clearTimeout(timer);
            resolve();
          },
        };
        const timer = setTimeout(() => {
          if (waiter === mine) waiter = null;
          reject(new Error(`never saw ${JSON.stringify(text)}`));
        }, timeoutMs);
        waiter = mine;
      });
    },
  };
}

/**
 * Keystroke → echo, `keys` for each face, the faces taking turns key by key so that each sees the
 * same machine: one character typed into the face's outer terminal (a program there echoes it,
 * `cat`) until that terminal shows it, `gapMs` apart. Each key is an ideograph of its own, which no
 * escape sequence and no earlier echo can contain. Latencies in ms, by face.
 */
export async function alternatingEchoes(faces, keys, gapMs = 20) {
  const latencies = Object.fromEntries(Object.keys(faces).map((name) => [name, []]));
  const names = Object.keys(faces);
  for (let i = 0; i < keys * names.length; i++) {
    const name = names[i % names.length];
    const marker = String.fromCodePoint(0x4e00 + (i % 20_000));
    const start = process.hrtime.bigint();
    const shown = faces[name].next(marker);
    faces[name].term.write(marker);
    await shown;
    latencies[name].push(Number(process.hrtime.bigint() - start) / 1e6);
    await new Promise((resolve) => setTimeout(resolve, gapMs));
  }
  return latencies;
}
