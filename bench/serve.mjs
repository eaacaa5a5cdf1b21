// serve: the latency from an agent's OSC 7501 report to the events.subscribe frame that reports
// its reduced status (p50/p99), and fleet.list latency with 50 panes.
// Run: npm run bench:serve
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, connect, percentile, startServe } from './lib.mjs';

const REPORTS = 500;
const PANES = 50;

const scratch = mkdtempSync(join(tmpdir(), 'pf-bench-agent-'));
const bin = join(scratch, 'bin');
mkdirSync(bin);
// A program named claude (so it is identified as an agent) that queries, waits to be identified,
// then alternates working and idle, writing each report's monotonic time to a file first.
const stamps = join(scratch, 'stamps.txt');
writeFileSync(
  join(bin, 'claude'),
  `#!/usr/bin/env node
const fs = require('fs');
process.stdout.write('\\x1b]7501;?\\x07');
const out = fs.openSync(${JSON.stringify(stamps)}, 'w');
let n = 0;
setTimeout(() => {
  const t = setInterval(() => {
    fs.writeSync(out, process.hrtime.bigint() + '\\n');
    process.stdout.write('\\x1b]7501;state=' + (n % 2 ? 'idle' : 'working') + '\\x1b\\\\');
    if (++n === ${REPORTS}) clearInterval(t);
  }, 15);
}, 1500);
setInterval(() => {}, 1000);
`,
);
chmodSync(join(bin, 'claude'), 0o755);

const instance = startServe({ PANEFLOW_IPC_ORCHESTRATION: '1', PATH: `${bin}:${process.env.PATH}` });
const results = {};
try {
  const events = await connect(instance.socket);
  const arrivals = [];
  let surface = null;
  events.onFrame((frame) => {
    if (frame.type === 'status_changed' && frame.surface_id === surface && (frame.status === 'busy' || frame.status === 'idle') && frame.reason === 'declared') {
      arrivals.push(process.hrtime.bigint());
    }
  });
  await events.request('events.subscribe', { types: ['status_changed'] });
  const up = await call(instance.socket, 'workspace.up', { name: 'bench', layout: 'tiled', panes: [{ cwd: instance.dir, command: 'claude', focus: true, env: {} }] });
  surface = up.surfaces[0].surface_id;
  const deadline = Date.now() + 60_000;
  while (arrivals.length < REPORTS - 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  const written = readFileSync(stamps, 'utf8').trim().split('\n').map(BigInt);
  // The first report moves idle (no record) to busy; from then on each report is one transition.
  const latencies = arrivals.map((at, i) => Number(at - written[i]) / 1e6).filter((ms) => ms >= 0);
  results.frames = latencies.length;
  results.p50 = percentile(latencies, 50);
  results.p99 = percentile(latencies, 99);
  events.close();

  for (let i = 1; i < PANES; i++) {
    await call(instance.socket, 'surface.split', { direction: i % 2 ? 'h' : 'v', ...(i % 5 === 0 ? { command: 'claude' } : {}) });
  }
  // Let the agents' report runs end, so that fleet.list is measured on its own.
  await new Promise((r) => setTimeout(r, 10_000));
  const pings = [];
  for (let i = 0; i < 50; i++) {
    const start = process.hrtime.bigint();
    await call(instance.socket, 'system.ping');
    pings.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  results.pingP50 = percentile(pings, 50);
  const times = [];
  let agents = 0;
  for (let i = 0; i < 50; i++) {
    const start = process.hrtime.bigint();
    agents = (await call(instance.socket, 'fleet.list')).agents.length;
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  results.fleetP50 = percentile(times, 50);
  results.fleetP99 = percentile(times, 99);
  results.agents = agents;
} finally {
  instance.stop();
  rmSync(scratch, { recursive: true, force: true });
}

console.log(`report → events.subscribe frame over ${results.frames} transitions: p50 ${results.p50.toFixed(2)} ms, p99 ${results.p99.toFixed(2)} ms`);
console.log(
  `fleet.list with ${PANES} panes (${results.agents} agents), one connection per call: p50 ${results.fleetP50.toFixed(2)} ms, p99 ${results.fleetP99.toFixed(2)} ms (system.ping p50 ${results.pingP50.toFixed(2)} ms)`,
);
