// Agent identification: the cost of one scan of a 50-process tree, and the host's CPU use over
// 30 s with 20 idle panes (target: under 1% of one core in total).
// Run: npm run bench:procscan
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, ROOT, startHost } from './lib.mjs';

// Bundled inside the repo (dist/ is ignored) so that it finds node-pty in node_modules.
const bundle = join(ROOT, 'dist/bench/procscan-scan.cjs');
execFileSync(process.execPath, [join(ROOT, 'tools/build-app.mjs'), join(ROOT, 'bench/procscan-scan.ts'), bundle], { stdio: 'inherit' });
const scan = spawnSync(process.execPath, [bundle], { encoding: 'utf8', cwd: ROOT, timeout: 60_000 });
process.stdout.write(scan.stdout + scan.stderr);

const SECONDS = 30;
const PANES = 20;
const host = startHost();
try {
  const client = await connect(host.socket);
  await client.request('host.hello', { client: 'bench', protocol: 1, secret: host.secret });
  const { pid } = await client.request('host.status');
  for (let i = 0; i < PANES; i++) {
    await client.request('session.create', { workspace_id: 'bench', surface_id: i + 1, cwd: tmpdir(), env: {}, cols: 80, rows: 24, argv: ['bash', '--norc', '--noprofile'] });
  }
  await new Promise((resolve) => setTimeout(resolve, 2000)); // prompts drawn, first scans done
  const ticks = () => {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return Number(f[11]) + Number(f[12]); // utime + stime, in 1/100 s
  };
  const before = ticks();
  const { counters: c0 } = await client.request('host.status');
  await new Promise((resolve) => setTimeout(resolve, SECONDS * 1000));
  const used = (ticks() - before) / 100;
  const { counters: c1 } = await client.request('host.status');
  console.log(
    `host CPU with ${PANES} idle panes over ${SECONDS} s: ${((used / SECONDS) * 100).toFixed(2)}% of one core (target < 1%); scans meanwhile: ${c1.scans - c0.scans}`,
  );
  client.close();
} finally {
  host.stop();
}
