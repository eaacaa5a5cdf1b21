// Every deep import of @paneflow/protocol in the sources (`@paneflow/protocol/limits`) is a subpath
// the package itself exports: resolved through its exports map to a built module, as a program
// outside the monorepo would resolve it, and holding every name imported from it.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = join(__dirname, '../..');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return ['node_modules', 'dist'].includes(entry.name) ? [] : sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

const imports = ['apps', 'libs'].flatMap((top) => sources(join(root, top))).flatMap((file) =>
  [...readFileSync(file, 'utf8').matchAll(/import\s+(type\s+)?\{([^}]*)\}\s+from\s+'(@paneflow\/protocol\/[a-z-]+)'/g)].map((match) => ({
    file: relative(root, file),
    subpath: match[3],
    names: match[1] ? [] : match[2].split(',').map((name) => name.trim().split(/\s+as\s+/)[0]).filter((name) => name && !name.startsWith('type ')),
  })),
);

test('the sources reach into the protocol by subpath', () => {
  expect(imports.length).toBeGreaterThan(50);
});

/** Each subpath as plain Node resolves it from the repository (not through jest's module map): the file, and its exports. */
function resolveOutside(subpaths: string[]): Record<string, { file: string; names: string[] }> {
  const script = `const out = {}; for (const s of ${JSON.stringify(subpaths)}) { const file = require.resolve(s); out[s] = { file, names: Object.keys(require(file)) }; } console.log(JSON.stringify(out));`;
  const result = spawnSync(process.execPath, ['-e', script], { cwd: root, encoding: 'utf8' });
  expect(result.stderr).toBe('');
  return JSON.parse(result.stdout);
}

test('each is exported, built, and has what is imported from it', () => {
  const subpaths = [...new Set(imports.map((i) => i.subpath))].sort();
  const resolved = resolveOutside(subpaths);
  for (const subpath of subpaths) {
    const { file, names } = resolved[subpath];
    const wanted = [...new Set(imports.filter((i) => i.subpath === subpath).flatMap((i) => i.names))];
    expect([subpath, relative(root, file), wanted.filter((name) => !names.includes(name))]).toEqual([subpath, `libs/protocol/dist/${subpath.split('/').at(-1)}.cjs`, []]);
  }
});
