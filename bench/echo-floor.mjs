// What part of a keystroke's echo through `paneflow attach` is paneflow's own: the echo (`cat`)
// through tmux, through a bare pair of Node processes that only relay bytes (a client between its
// terminal and a unix socket, a server between that socket and a PTY: no JSON, no terminal
// emulator, no frame; in Node, and in C where this machine has a compiler), and through paneflow
// attach (a client and a host, both Node, with serve beside them), keys taking turns between them.
// The Node pair is the floor of any design with a Node client and a Node host on the path
// (apps/host/README.md, *A keystroke's echo, hop by hop*).
// Run: node bench/echo-floor.mjs   (needs tmux)   Env: KEYS (300 each), GAP_MS (20).
import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
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
const { writeSync } = require('node:fs');
require('node:net').createServer((socket) => {
  const cat = pty.spawn('cat', [], { cols: 80, rows: 24 });
  // At once on the PTY's master, as the host's writeNow (libs/proc): node-pty's write goes through libuv's pool.
  socket.on('data', (data) => writeSync(cat._fd, data));
  cat.onData((data) => socket.write(data));
  socket.on('close', () => cat.kill());
}).listen(process.argv[1], () => process.stdout.write('listening\\n'));`;
const relayClient = `
const socket = require('node:net').connect(process.argv[1]);
process.stdin.setRawMode(true);
process.stdin.on('data', (data) => socket.write(data));
socket.on('data', (data) => process.stdout.write(data));
socket.on('close', () => process.exit(0));`;

// The same pair in C, where this machine has a compiler: what two processes cost without Node.
const preludeC = `#include <poll.h>
#include <pty.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <termios.h>
#include <unistd.h>
static struct sockaddr_un at(const char *path) {
  struct sockaddr_un address = {0};
  address.sun_family = AF_UNIX;
  strncpy(address.sun_path, path, sizeof address.sun_path - 1);
  return address;
}
`;
const relayServerC = `${preludeC}
int main(int argc, char **argv) {
  int listener = socket(AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un address = at(argv[1]);
  if (bind(listener, (struct sockaddr *)&address, sizeof address) || listen(listener, 1)) return 1;
  write(1, "listening\\n", 10);
  int client = accept(listener, 0, 0), master;
  if (forkpty(&master, 0, 0, 0) == 0) { execlp("cat", "cat", (char *)0); _exit(127); }
  struct pollfd fds[2] = {{client, POLLIN, 0}, {master, POLLIN, 0}};
  char buffer[65536];
  for (;;) {
    if (poll(fds, 2, -1) < 0) return 1;
    for (int i = 0; i < 2; i++) {
      if (!fds[i].revents) continue;
      ssize_t n = read(fds[i].fd, buffer, sizeof buffer);
      if (n <= 0) return 0;
      write(fds[1 - i].fd, buffer, n);
    }
  }
}`;
const relayClientC = `${preludeC}
int main(int argc, char **argv) {
  int server = socket(AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un address = at(argv[1]);
  if (connect(server, (struct sockaddr *)&address, sizeof address)) return 1;
  struct termios raw;
  tcgetattr(0, &raw);
  cfmakeraw(&raw);
  tcsetattr(0, TCSANOW, &raw);
  struct pollfd fds[2] = {{0, POLLIN, 0}, {server, POLLIN, 0}};
  char buffer[65536];
  for (;;) {
    if (poll(fds, 2, -1) < 0) return 1;
    if (fds[0].revents) { ssize_t n = read(0, buffer, sizeof buffer); if (n <= 0) return 0; write(server, buffer, n); }
    if (fds[1].revents) { ssize_t n = read(server, buffer, sizeof buffer); if (n <= 0) return 0; write(1, buffer, n); }
  }
}`;

const instance = startServe({ PANEFLOW_IPC_ORCHESTRATION: '1' });

/** A C program built in the instance's directory, or null without a compiler. */
function compiled(name, source) {
  writeFileSync(join(instance.dir, `${name}.c`), source);
  const built = spawnSync('cc', ['-O2', '-o', join(instance.dir, name), join(instance.dir, `${name}.c`), '-lutil']);
  return built.status === 0 ? join(instance.dir, name) : null;
}
const tmuxName = `pf-bench-echo-${process.pid}`;
const socketPath = join(instance.dir, 'relay.sock');
const servers = [spawn(process.execPath, ['-e', relayServer, socketPath, NODE_PTY], { stdio: ['ignore', 'pipe', 'inherit'] })];
const serverC = compiled('relay-server', relayServerC);
const clientC = compiled('relay-client', relayClientC);
if (serverC && clientC) servers.push(spawn(serverC, [`${socketPath}.c`], { stdio: ['ignore', 'pipe', 'inherit'] }));
const faces = {};
try {
  for (const server of servers) await new Promise((listening) => server.stdout.once('data', listening));
  await call(instance.socket, 'workspace.up', { name: 'echo', layout: 'even_h', panes: [{ name: 'typing', cwd: instance.dir, command: 'exec cat', focus: true, env: {} }] });
  faces.tmux = outerTerminal('tmux', ['-L', tmuxName, '-f', '/dev/null', 'new-session', 'cat'], process.env);
  if (serverC && clientC) faces['C relay pair'] = outerTerminal(clientC, [`${socketPath}.c`], process.env);
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
  for (const server of servers) server.kill();
  instance.stop();
}
