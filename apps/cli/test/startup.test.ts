// How a verb starts and ends. What a read-only verb loads as it starts (README: start-up budget):
// bench:cli times it; this holds the cause steady, since a module loaded only to sit unused costs
// every call its milliseconds. And all it printed reaches a pipe before it exits.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, makeHome, screen, type Home } from '@paneflow/testing';
import { spawnSync } from 'node:child_process';

/** Run first in the verb's process: on exit, the builtins it loaded and our bundles it read. */
const RECORDER = `process.on('exit', () => require('node:fs').writeFileSync(process.env.PF_LOADED, JSON.stringify({
  builtins: process.moduleLoadList.filter((m) => m.startsWith('NativeModule ') && !m.includes('internal/')).map((m) => m.slice('NativeModule '.length)),
  bundles: Object.keys(require.cache).map((file) => require('node:path').basename(file)).filter((file) => file.startsWith('paneflow')),
})));`;

let home: Home;
let surfaceId: number;
beforeAll(async () => {
  home = makeHome({ PANEFLOW_IPC_SCRIPTING: '1' });
  // The home a user has: no PANEFLOW_HOME, so the runtime directory needs no digest of it.
  delete home.env.PANEFLOW_HOME;
  home.env.XDG_STATE_HOME = join(home.dir, 'state');
  writeFileSync(join(home.dir, 'recorder.cjs'), RECORDER);
  const created = home.run(['new']);
  expect(created.stderr).toBe('');
  surfaceId = created.json<{ surface_id: number }>().surface_id;
  // Lines of 36 bytes: 4,000 of them are more than twice what a pipe holds at once (64 KiB).
  expect(home.run(['send', String(surfaceId), "seq -f 'line-%030g' 1 5000", '--submit']).code).toBe(0);
  await screen(home, String(surfaceId), /^line-0+5000$/m);
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
  expect(loaded.bundles.sort()).toEqual(['paneflow.cjs', 'paneflow-main.cjs', family].sort());
  expect(loaded.builtins).toContain('net');
  expect(loaded.builtins.filter((name) => ['child_process', 'crypto', 'readline'].includes(name))).toEqual([]);
});

test('a read longer than a pipe holds reaches the reader whole before the verb exits', () => {
  // Through a real pipe, as in `paneflow read … | less` (the test's own stdio is a socket pair, which holds more).
  const read = spawnSync('sh', ['-c', `'${process.execPath}' '${CLI}' read ${surfaceId} --lines 4000 --raw | cat`], { env: home.env, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  expect(read.status).toBe(0);
  const lines = read.stdout.split('\n').filter((line) => line.startsWith('line-'));
  expect(Buffer.byteLength(read.stdout)).toBeGreaterThan(2 * 65536);
  expect(lines.length).toBeGreaterThan(3900);
  expect(lines.at(-1)).toBe(`line-${'0'.repeat(26)}5000`);
});
