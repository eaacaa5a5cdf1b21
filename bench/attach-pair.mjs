// Two builds of the attach client side by side: each attached in a PTY of its own to the same 8
// working agents, so both see the same events, and each one's CPU (share of a core) is printed
// for the same windows. One window of this workload differs from the next by more than most
// changes save; the same events for both do not (bench/README.md, *CPU, 8 agents working*).
// Run: node bench/attach-pair.mjs A B   (A and B: copies of apps/cli/dist of the two builds)
// Env: WINDOWS (8), WINDOW_MS (4000), WARM_MS (2500) before the first window.
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { cpuSeconds, startServe, upAgents } from './lib.mjs';

const pty = createRequire(import.meta.url)('node-pty');
const builds = process.argv.slice(2, 4).map((dir) => resolve(dir));
if (builds.length !== 2) {
  console.error('usage: node bench/attach-pair.mjs A B   (each a copy of apps/cli/dist)');
  process.exit(2);
}
const WINDOWS = Number(process.env.WINDOWS ?? 8);
const WINDOW_MS = Number(process.env.WINDOW_MS ?? 4000);
const WARM_MS = Number(process.env.WARM_MS ?? 2500);
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

const instance = startServe({ PANEFLOW_IPC_SCRIPTING: '1', PANEFLOW_IPC_ORCHESTRATION: '1' });
const clients = [];
try {
  await upAgents(instance, 'agents');
  for (const dir of builds) {
    const client = pty.spawn(process.execPath, [join(dir, 'paneflow.cjs'), 'attach', 'agents'], { name: 'xterm-256color', cols: 120, rows: 32, env: { ...instance.env, TERM: 'xterm-256color' } });
    client.onData(() => undefined);
    clients.push(client);
  }
  await sleep(WARM_MS);
  const shares = builds.map(() => []);
  for (let w = 0; w < WINDOWS; w++) {
    const before = clients.map((c) => cpuSeconds(c.pid));
    await sleep(WINDOW_MS);
    clients.forEach((c, i) => shares[i].push(((cpuSeconds(c.pid) - before[i]) / (WINDOW_MS / 1000)) * 100));
  }
  builds.forEach((dir, i) => {
    const sum = shares[i].reduce((a, b) => a + b, 0);
    console.log(`${'AB'[i]} ${dir}\n  % of a core per ${WINDOW_MS / 1000} s window: ${shares[i].map((x) => x.toFixed(2)).join(' ')}  (sum ${sum.toFixed(2)})`);
  });
} finally {
  for (const client of clients) client.kill();
  instance.stop();
}
