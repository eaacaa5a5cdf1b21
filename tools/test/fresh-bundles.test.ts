import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

// tools/fresh-bundles.cjs, jest's globalSetup: a test run against an app bundle older than a file
// it was built from is refused with one line that names both and the build to run.
const { staleBundle } = require('../fresh-bundles.cjs') as { staleBundle(root: string, projectDir: string): string | null };

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'pf-fresh-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function write(file: string, text: string, ageSeconds: number) {
  const path = join(root, file);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  const at = Date.now() / 1000 - ageSeconds;
  utimesSync(path, at, at);
}

/** App `a`, whose tests run its own bundle and `b`'s (`dependsOn: ["build", "b:build"]`), and lib `l`. */
function workspace() {
  write('apps/a/project.json', JSON.stringify({ name: 'a', targets: { test: { dependsOn: ['build', '^build', 'b:build'] } } }), 100);
  write('apps/b/project.json', JSON.stringify({ name: 'b', targets: {} }), 100);
  write('libs/l/project.json', JSON.stringify({ name: 'l', targets: { test: { dependsOn: ['build'] } } }), 100);
  write('apps/a/src/main.ts', 'a', 60);
  write('libs/l/src/index.ts', 'l', 60);
  write('apps/b/src/main.ts', 'b', 60);
  write('apps/a/dist/a.cjs', 'bundle a', 30);
  write('apps/a/dist/a.cjs.inputs.json', JSON.stringify({ bundle: 'apps/a/dist/a.cjs', inputs: ['apps/a/src/main.ts', 'libs/l/src/index.ts'] }), 30);
  write('apps/b/dist/b.cjs', 'bundle b', 30);
  write('apps/b/dist/b.cjs.inputs.json', JSON.stringify({ bundle: 'apps/b/dist/b.cjs', inputs: ['apps/b/src/main.ts'] }), 30);
}

test('bundles newer than every input pass; a library with no app builds checks nothing', () => {
  workspace();
  expect(staleBundle(root, join(root, 'apps/a'))).toBeNull();
  rmSync(join(root, 'apps/b/dist'), { recursive: true });
  expect(staleBundle(root, join(root, 'libs/l'))).toBeNull();
});

test('a source edited after the build, in the app or in a library it bundles, names the bundle, the file and the build', () => {
  workspace();
  write('libs/l/src/index.ts', 'l, edited', 0);
  expect(staleBundle(root, join(root, 'apps/a'))).toBe('apps/a/dist/a.cjs is older than libs/l/src/index.ts: run `npx nx build a`');
});

test("another app's bundle the tests run counts too", () => {
  workspace();
  write('apps/b/src/main.ts', 'b, edited', 0);
  expect(staleBundle(root, join(root, 'apps/a'))).toBe('apps/b/dist/b.cjs is older than apps/b/src/main.ts: run `npx nx build b`');
});

test('a missing bundle, a dist built some other way, and an input that is gone are each refused', () => {
  workspace();
  rmSync(join(root, 'apps/b/dist/b.cjs'));
  expect(staleBundle(root, join(root, 'apps/a'))).toBe('apps/b/dist/b.cjs is missing: run `npx nx build b`');
  rmSync(join(root, 'apps/b/dist'), { recursive: true });
  expect(staleBundle(root, join(root, 'apps/a'))).toBe('apps/b/dist has no bundle built by this workspace: run `npx nx build b`');
  workspace();
  rmSync(join(root, 'apps/a/src/main.ts'));
  expect(staleBundle(root, join(root, 'apps/a'))).toBe('apps/a/dist/a.cjs was built from apps/a/src/main.ts, which is gone: run `npx nx build a`');
});
