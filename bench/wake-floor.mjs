// What a process costs that does nothing but relay: frames of ~60 bytes, RATE a second, from a unix
// socket to a PTY (as attach takes a pane's output to its terminal), each relay's share of a core
// over WINDOW_MS. The floor under any client that wakes for each frame (bench/README.md, *CPU, 8
// agents working*). Relays: Node reading through the stream's `data` events, Node reading with
// `onread` into one buffer (as @paneflow/rpc's client does), and python3 and C when this machine has them.
// Run: node bench/wake-floor.mjs   Env: RATE (30), WINDOW_MS (20000), WARM_MS (3000).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpuSeconds } from './lib.mjs';

const pty = createRequire(import.meta.url)('node-pty');
const RATE = Number(process.env.RATE ?? 30);
const WINDOW_MS = Number(process.env.WINDOW_MS ?? 20_000);
const WARM_MS = Number(process.env.WARM_MS ?? 3000);
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));
const dir = mkdtempSync(join(tmpdir(), 'pf-wake-floor-'));

const relays = {
  'node, data events': ['node', `require('node:net').connect(process.argv[1]).on('data', (d) => process.stdout.write(d));`],
  'node, onread': ['node', `const b = Buffer.allocUnsafe(65536); require('node:net').connect({ path: process.argv[1], onread: { buffer: b, callback: (n) => void process.stdout.write(b.subarray(0, n)) } });`],
  python3: ['python3', 'import socket, sys, os\ns = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])\nwhile True:\n    d = s.recv(65536)\n    if not d: break\n    os.write(1, d)'],
  C: ['c', '#include <sys/socket.h>\n#include <sys/un.h>\n#include <string.h>\n#include <unistd.h>\nint main(int c, char **v) { int s = socket(AF_UNIX, SOCK_STREAM, 0); struct sockaddr_un a = {0}; a.sun_family = AF_UNIX; strncpy(a.sun_path, v[1], sizeof a.sun_path - 1); if (connect(s, (struct sockaddr *)&a, sizeof a)) return 1; char b[65536]; for (;;) { ssize_t n = read(s, b, sizeof b); if (n <= 0) return 0; write(1, b, n); } }'],
};

/** The argv that runs a relay, or null when this machine cannot. */
function command(kind, source) {
  if (kind === 'node') return [process.execPath, '-e', source];
  if (kind === 'python3') return spawnSync('python3', ['-c', '0']).status === 0 ? ['python3', '-c', source] : null;
  writeFileSync(join(dir, 'relay.c'), source);
  return spawnSync('cc', ['-O2', '-o', join(dir, 'relay'), join(dir, 'relay.c')]).status === 0 ? [join(dir, 'relay')] : null;
}

async function measure(argv) {
  const path = join(dir, 'sock');
  rmSync(path, { force: true });
  const server = createServer((socket) => {
    const timer = setInterval(() => socket.write(`\x1b[5;10H⠋ working ${Date.now()}\x1b[K`), 1000 / RATE);
    socket.on('close', () => clearInterval(timer));
    socket.on('error', () => undefined);
  });
  await new Promise((listening) => server.listen(path, listening));
  const relay = pty.spawn(argv[0], [...argv.slice(1), path], { cols: 120, rows: 32 });
  relay.onData(() => undefined);
  try {
    await sleep(WARM_MS);
    const before = cpuSeconds(relay.pid);
    await sleep(WINDOW_MS);
    return ((cpuSeconds(relay.pid) - before) / (WINDOW_MS / 1000)) * 100;
  } finally {
    relay.kill();
    server.close();
  }
}

try {
  console.log(`A relay of ${RATE} frames a second, socket to PTY: % of a core over ${WINDOW_MS / 1000} s`);
  for (const [name, [kind, source]] of Object.entries(relays)) {
    const argv = command(kind, source);
    console.log(`  ${name.padEnd(20)} ${argv ? (await measure(argv)).toFixed(2).padStart(6) : '     (not here)'}`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
