// What part of a keystroke's echo through `paneflow attach` is paneflow's own: the echo (`cat`)
// through tmux, through a bare pair of Node processes that only relay bytes (a client between its
// terminal and a unix socket, a server between that socket and a PTY: no JSON, no terminal
// emulator, no frame), and through paneflow attach (a client and a host, both Node, with serve
// beside them), keys taking turns between the three. The relay pair is the floor of any design with
// a Node client and a Node host on the path (apps/host/README.md, *A keystroke's echo, hop by hop*).
// Run: node bench/echo-floor.mjs   (needs tmux)   Env: KEYS (300 each), GAP_MS (20).
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { alternatingEchoes, call, hasCommand, killTmux, outerTerminal, percentile, ROOT, startServe } from './lib.mjs';

if (!hasCommand('tmux')) {
  console.log('tmux is not installed (apt-get install tmux)');
  process.exit(0);
}
const KEYS = Number(process.env.KEYS ?? 300);
const GAP_MS = Number(process.env.GAP_MS ?? 20);
const CLI = join(ROOT, 'apps/cli/dist/paneflow.cjs');
const NODE_PTY = createRequire(import.meta.url).resolve('node-pty');

const relayServer = `
const pty = require(process.argv[2]);
require('node:net').createServer((socket) => {
  const cat = pty.spawn('cat', [], { cols: 80, rows: 24 });
  socket.on('data', (data) => cat.write(data));
  cat.onData((data) => socket.write(data));
  socket.on('close', () => cat.kill());
}).listen(process.argv[1], () => process.stdout.write('listening\\n'));`;
const relayClient = `
const socket = require('node:net').connect(process.argv[1]);
process.stdin.setRawMode(true);
process.stdin.on('data', (data) => socket.write(data));
socket.on('data', (data) => process.stdout.write(data));
socket.on('close', () => process.exit(0));`;

const instance = startServe({ PANEFLOW_IPC_ORCHESTRATION: '1' });
const tmuxName = `pf-bench-echo-${process.pid}`;
const socketPath = join(instance.dir, 'relay.sock');
const server = spawn(process.execPath, ['-e', relayServer, socketPath, NODE_PTY], { stdio: ['ignore', 'pipe', 'inherit'] });
const faces = {};
try {
  await new Promise((listening) => server.stdout.once('data', listening));
  await call(instance.socket, 'workspace.up', { name: 'echo', layout: 'even_h', panes: [{ name: 'typing', cwd: instance.dir, command: 'exec cat', focus: true, env: {} }] });
  faces.tmux = outerTerminal('tmux', ['-L', tmuxName, '-f', '/dev/null', 'new-session', 'cat'], process.env);
  faces['node relay pair'] = outerTerminal(process.execPath, ['-e', relayClient, socketPath], process.env);
  faces['paneflow attach'] = outerTerminal(process.execPath, [CLI, 'attach', 'echo'], instance.env);
  await faces['paneflow attach'].next('typing', 15_000);
  await new Promise((done) => setTimeout(done, 1000));
  const latencies = await alternatingEchoes(faces, KEYS, GAP_MS);
  const tmuxP50 = percentile(latencies.tmux, 50);
  for (const [face, ms] of Object.entries(latencies)) {
    const p50 = percentile(ms, 50);
    console.log(`${face.padEnd(16)} p50 ${p50.toFixed(3)} ms (${(p50 / tmuxP50).toFixed(2)}× tmux)   p99 ${percentile(ms, 99).toFixed(3)} ms`);
  }
} finally {
  for (const face of Object.values(faces)) face.term.kill();
  killTmux(tmuxName);
  server.kill();
  instance.stop();
}
