// `paneflow ps` with two other machines linked (issue 32), against `paneflow ps` of an instance
// with none, alternating in pairs so both see the same machine; the figure is the median of the
// per-pair ratios. Each instance has 4 agents (the fixture agent); each far machine is a second
// instance on this machine with 4 agents of its own, reached through a small stand-in for `ssh`
// that runs the remote command in its home (the link's cost is ssh's; what is measured here is
// what the lists cost serve and the CLI once connected).
// Target: within 2× (`npm run bench:budgets`).
// Run: npm run bench:machines
import { spawnSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { call, median, reportFigures, ROOT, SHORT, startServe } from './lib.mjs';

const CLI = join(ROOT, 'apps/cli/dist/paneflow.cjs');
const AGENTS = 4;

/** An instance with `AGENTS` fixture agents, each declared idle. */
async function withAgents(extraEnv = {}) {
  const instance = startServe({ PANEFLOW_IPC_ORCHESTRATION: '1', ...extraEnv });
  const bin = join(instance.dir, 'bin');
  mkdirSync(bin, { recursive: true });
  symlinkSync(join(ROOT, 'fixtures/agent.mjs'), join(bin, 'claude'));
  writeFileSync(join(bin, 'paneflow'), `#!/bin/sh\nexec ${process.execPath} ${CLI} "$@"\n`, { mode: 0o755 });
  const panes = Array.from({ length: AGENTS }, (_, i) => ({ name: `a${i}`, cwd: instance.dir, command: join(bin, 'claude'), focus: i === 0, env: {} }));
  await call(instance.socket, 'workspace.up', { name: 'bench', layout: 'tiled', panes });
  for (let tries = 0; tries < 200; tries++) {
    const { agents } = await call(instance.socket, 'fleet.list', {});
    if (agents.filter((a) => a.state === 'idle').length >= AGENTS) return instance;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the fixture agents never declared idle');
}

/** The stand-in for ssh: options skipped, the destination's instance env, the command under sh. */
function fakeSsh(dir, destinations) {
  writeFileSync(join(dir, 'ssh-destinations.json'), JSON.stringify(destinations));
  writeFileSync(
    join(dir, 'ssh'),
    `#!${process.execPath}
const args = process.argv.slice(2); let i = 0;
for (; i < args.length && args[i].startsWith('-'); i++) if ('oipFl'.includes(args[i][1]) && args[i].length === 2) i++;
const env = require(${JSON.stringify(join(dir, 'ssh-destinations.json'))})[args[i]];
const child = require('node:child_process').spawn('/bin/sh', ['-c', args.slice(i + 1).join(' ')], { env: { ...process.env, ...env }, stdio: 'inherit' });
child.on('exit', (code) => process.exit(code ?? 255));
`,
    { mode: 0o755 },
  );
}

const farEnv = (instance) => ({
  PANEFLOW_HOME: instance.env.PANEFLOW_HOME,
  XDG_RUNTIME_DIR: instance.env.XDG_RUNTIME_DIR,
  PANEFLOW_CONFIG: instance.env.PANEFLOW_CONFIG,
  PATH: `${join(instance.dir, 'bin')}:${process.env.PATH}`,
});

const instances = [];
let figures;
try {
  const plain = await withAgents();
  instances.push(plain);
  const farA = await withAgents();
  const farB = await withAgents();
  instances.push(farA, farB);
  const sshDir = join(plain.dir, 'ssh-bin');
  mkdirSync(sshDir);
  fakeSsh(sshDir, { a: farEnv(farA), b: farEnv(farB) });
  const linked = await withAgents({ PATH: `${sshDir}:${process.env.PATH}` });
  instances.push(linked);
  await call(linked.socket, 'machine.add', { name: 'a', destination: 'a' });
  await call(linked.socket, 'machine.add', { name: 'b', destination: 'b' });
  for (let tries = 0; ; tries++) {
    const { agents } = await call(linked.socket, 'fleet.list', {});
    if (agents.length === 3 * AGENTS) break;
    if (tries > 300) throw new Error(`the far agents never arrived (${agents.length})`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const run = (instance) => {
    const start = process.hrtime.bigint();
    const result = spawnSync(process.execPath, [CLI, 'ps', '--json'], { env: instance.env, encoding: 'utf8' });
    if (result.status !== 0) throw new Error(result.stderr);
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    const rows = JSON.parse(result.stdout);
    const count = (Array.isArray(rows) ? rows : rows.agents).length;
    if (count !== (instance === linked ? 3 : 1) * AGENTS) throw new Error(`ps listed ${count} agents`);
    return { ms };
  };
  const pairs = SHORT ? 10 : 20;
  const local = [];
  const fleet = [];
  const ratios = [];
  for (let i = 0; i <= pairs; i++) {
    const a = run(plain);
    const b = run(linked);
    if (i === 0) continue;
    local.push(a.ms);
    fleet.push(b.ms);
    ratios.push(b.ms / a.ms);
  }
  figures = { local_ms: median(local), fleet_ms: median(fleet), ratio: median(ratios) };
  console.log(`${pairs} alternating pairs, medians:`);
  console.log(`  paneflow ps, ${AGENTS} agents here              ${figures.local_ms.toFixed(1).padStart(6)} ms`);
  console.log(`  paneflow ps, ${AGENTS} here + 2 machines × ${AGENTS}   ${figures.fleet_ms.toFixed(1).padStart(6)} ms   ${figures.ratio.toFixed(2)}×`);
  console.log(`target: within 2× (${figures.ratio.toFixed(2)}×)`);
} finally {
  for (const instance of instances.reverse()) instance.stop();
}
reportFigures({ machines_ps: figures });
