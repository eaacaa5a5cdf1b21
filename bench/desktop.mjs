// The renderer's wakeups per second: every timer and animation-frame callback the page runs,
// counted in Debian's Chromium against a real instance with 8 fixture agents, all idle, then 1
// and 8 of them working. Targets: 10–12 with any number working (one shared 90 ms spinner
// clock, as the reference holds), 0 when all are idle.
// Run: npm run bench:desktop
import { build } from 'esbuild';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, ROOT, startServe } from './lib.mjs';

const AGENTS = 8;
const WINDOW_MS = 5000;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// The browser harness of the desktop tests, bundled beside the renderer it serves.
const harnessFile = join(ROOT, 'apps/desktop/dist/bench-harness.cjs');
await build({ entryPoints: [join(ROOT, 'apps/desktop/test/harness.ts')], outfile: harnessFile, bundle: true, platform: 'node', format: 'cjs', external: ['playwright-core', 'esbuild'], logLevel: 'warning' });
const { openDesktop } = createRequire(import.meta.url)(harnessFile);

const bin = mkdtempSync(join(tmpdir(), 'pf-bench-bin-'));
symlinkSync(join(ROOT, 'fixtures/agent.mjs'), join(bin, 'claude'));
const instance = startServe({ PANEFLOW_IPC_SCRIPTING: '1', PANEFLOW_IPC_ORCHESTRATION: '1', PATH: `${bin}:${process.env.PATH}` });
const results = {};
let desktop;
try {
  const panes = Array.from({ length: AGENTS }, (_, i) => ({ name: `agent-${i + 1}`, command: 'claude --work-ms 60000', cwd: instance.dir, focus: false, env: {} }));
  const { surfaces } = await call(instance.socket, 'workspace.up', { name: 'bench', layout: 'tiled', panes });
  desktop = await openDesktop(instance.env);
  const { page } = desktop;
  const marks = async (mark) => page.locator(`.agent[data-mark="${mark}"]`).count();
  for (let i = 0; (await marks('none')) < AGENTS; i++) {
    if (i > 200) throw new Error('the agents never declared idle');
    await sleep(100);
  }
  const rate = async () => {
    await sleep(1000); // let the last redraws settle
    const before = await page.evaluate(() => window.__paneflowWakeups);
    await sleep(WINDOW_MS);
    return ((await page.evaluate(() => window.__paneflowWakeups)) - before) / (WINDOW_MS / 1000);
  };
  const start = async (count) => {
    for (const surface of surfaces.slice(0, count)) {
      const status = await call(instance.socket, 'surface.status', { surface_id: surface.surface_id });
      if (status.state !== 'thinking') await call(instance.socket, 'surface.send_text', { surface_id: surface.surface_id, text: 'a long task', submit: true });
    }
    while ((await marks('working')) < count) await sleep(100);
  };
  results.idle = await rate();
  await start(1);
  results.one = await rate();
  await start(AGENTS);
  results.all = await rate();
} finally {
  await desktop?.close();
  instance.stop();
  rmSync(bin, { recursive: true, force: true });
  rmSync(harnessFile, { force: true });
}

console.log(`renderer wakeups per second (timer and animation-frame callbacks, ${WINDOW_MS / 1000} s windows):`);
console.log(`  all ${AGENTS} agents idle   ${results.idle.toFixed(1).padStart(5)}   (target 0)`);
console.log(`  1 agent working      ${results.one.toFixed(1).padStart(5)}   (target 10–12)`);
console.log(`  ${AGENTS} agents working     ${results.all.toFixed(1).padStart(5)}   (target 10–12)`);
