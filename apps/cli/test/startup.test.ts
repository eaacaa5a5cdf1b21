// What a read-only verb loads as it starts (README: start-up budget). bench:cli times it; this
// holds the cause steady: a module loaded only to sit unused costs every call its milliseconds.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeHome, type Home } from '@paneflow/testing';

/** Run first in the verb's process: on exit, the builtins it loaded and our bundles it read. */
const RECORDER = `process.on('exit', () => require('node:fs').writeFileSync(process.env.PF_LOADED, JSON.stringify({
  builtins: process.moduleLoadList.filter((m) => m.startsWith('NativeModule ') && !m.includes('internal/')).map((m) => m.slice('NativeModule '.length)),
  bundles: Object.keys(require.cache).map((file) => require('node:path').basename(file)).filter((file) => file.startsWith('paneflow')),
})));`;

let home: Home;
let surfaceId: number;
beforeAll(() => {
  home = makeHome();
  // The home a user has: no PANEFLOW_HOME, so the runtime directory needs no digest of it.
  delete home.env.PANEFLOW_HOME;
  home.env.XDG_STATE_HOME = join(home.dir, 'state');
  writeFileSync(join(home.dir, 'recorder.cjs'), RECORDER);
  const created = home.run(['new']);
  expect(created.stderr).toBe('');
  surfaceId = created.json<{ surface_id: number }>().surface_id;
});
afterAll(() => home.cleanup());

function loadedBy(args: string[]) {
  const record = join(home.dir, `loaded-${args[0]}.json`);
  const result = home.run(args, { env: { NODE_OPTIONS: `--require ${join(home.dir, 'recorder.cjs')}`, PF_LOADED: record } });
  expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
  return JSON.parse(readFileSync(record, 'utf8')) as { builtins: string[]; bundles: string[] };
}

test.each([
  [['ls'], 'paneflow-panes.cjs'],
  [['status', 'SURFACE'], 'paneflow-agents.cjs'],
  [['ps'], 'paneflow-agents.cjs'],
])('paneflow %j loads the entry and its family only, and no builtin it does not use (child_process, crypto, readline)', (args, family) => {
  const loaded = loadedBy(args.map((arg) => (arg === 'SURFACE' ? String(surfaceId) : arg)));
  expect(loaded.bundles.sort()).toEqual(['paneflow.cjs', family].sort());
  expect(loaded.builtins).toContain('net');
  expect(loaded.builtins.filter((name) => ['child_process', 'crypto', 'readline'].includes(name))).toEqual([]);
});
