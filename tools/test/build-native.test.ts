import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';

// tools/build-native.mjs records what a native module was built from, as build-app.mjs does for a
// bundle, so that tools/fresh-bundles.cjs refuses tests against a module older than its C source;
// a module it cannot build is left out with no record, as its loader goes on without it.

const root = resolve(__dirname, '../..');
const source = join(root, 'apps/host/native/malloc-trim.c');
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pf-native-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const build = (outfile: string, env: NodeJS.ProcessEnv = {}) =>
  spawnSync(process.execPath, [join(root, 'tools/build-native.mjs'), source, outfile], { env: { ...process.env, ...env }, encoding: 'utf8' });

test('a built module is recorded with its C source, as a bundle is with its inputs', () => {
  const outfile = join(dir, 'trim.node');
  expect(build(outfile).status).toBe(0);
  expect(existsSync(outfile)).toBe(true);
  const record = JSON.parse(readFileSync(`${outfile}.inputs.json`, 'utf8'));
  expect(record).toEqual({ bundle: relative(root, outfile), inputs: ['apps/host/native/malloc-trim.c'] });
});

test('a module that cannot be built leaves neither the module nor a record behind', () => {
  const outfile = join(dir, 'trim.node');
  expect(build(outfile).status).toBe(0);
  const failed = build(outfile, { CC: 'false' });
  expect(failed.status).toBe(0);
  expect(failed.stderr).toMatch(/^build-native: .*trim\.node not built \(.*\); what loads it goes on without it\n$/);
  expect([existsSync(outfile), existsSync(`${outfile}.inputs.json`)]).toEqual([false, false]);
});
