// What a hook costs an agent that runs it synchronously: `paneflow-ai-hook Stop` with an instance
// up, with none, and outside Paneflow, each in alternating pairs with `node -e 0` (bench/lib.mjs).
// Targets: within 1.3× of `node -e 0` with no instance, 1.5× with one (the reference hook's worst
// case is ~700 ms).
// Run: npm run bench:ai-hook
import { join } from 'node:path';
import { againstNode, call, ROOT, startServe } from './lib.mjs';

const HOOK = join(ROOT, 'apps/ai-hook/dist/paneflow-ai-hook.cjs');
const EVENT = JSON.stringify({ session_id: 'bench', last_assistant_message: 'All tests pass.', transcript_path: '/tmp/t.jsonl' });

const time = (args, env) => againstNode(process.execPath, args, { env, input: EVENT, silent: true });

const instance = startServe();
const results = {};
try {
  const { surface_id } = await call(instance.socket, 'workspace.create', { cwd: instance.dir });
  const { surfaces } = await call(instance.socket, 'surface.list', { scope: 'all' });
  const pane = { PATH: process.env.PATH, PANEFLOW_SESSION_ID: surfaces.find((s) => s.surface_id === surface_id).session, PANEFLOW_SURFACE_ID: String(surface_id) };
  results.outside = time([HOOK, 'Stop'], { PATH: process.env.PATH });
  results.none = time([HOOK, 'Stop'], { ...pane, PANEFLOW_SOCKET_PATH: join(instance.dir, 'absent.sock') });
  results.up = time([HOOK, 'Stop'], { ...pane, PANEFLOW_SOCKET_PATH: instance.socket });
  const { last_result } = await call(instance.socket, 'surface.status', { surface_id });
  if (last_result !== 'All tests pass.') throw new Error(`the hook's frame never reached serve (last_result ${last_result})`);
} finally {
  instance.stop();
}

const row = (label, r) => `  ${label.padEnd(34)} ${r.ms.toFixed(1).padStart(6)} ms   node -e 0 ${r.nodeMs.toFixed(1).padStart(6)} ms   ${r.ratio.toFixed(2)}×`;
console.log('15 alternating pairs each, medians:');
console.log(row('paneflow-ai-hook, outside Paneflow', results.outside));
console.log(row('paneflow-ai-hook, no instance', results.none));
console.log(row('paneflow-ai-hook, instance up', results.up));
console.log(`targets: no instance within 1.3× (${results.none.ratio.toFixed(2)}×), instance up within 1.5× (${results.up.ratio.toFixed(2)}×)`);
