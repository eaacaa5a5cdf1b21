// Builds a library for plain Node: dist/index.cjs (require), dist/index.mjs (import) and .d.ts files
// (each module of src/ too, where the exports map offers subpaths);
// and .d.mts files too when its exports map gives `import` declarations of their own.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const projectDir = resolve(root, process.argv[2]);
const outdir = join(projectDir, 'dist');
const { dependencies = {}, peerDependencies = {}, exports = {} } = JSON.parse(readFileSync(join(projectDir, 'package.json'), 'utf8'));

rmSync(outdir, { recursive: true, force: true });
// A library whose exports map has "./*" offers each module of src/ as a subpath of its own
// (`@paneflow/protocol/limits`): each is built as an entry, whole, beside index.
const entryPoints = exports['./*']
  ? readdirSync(join(projectDir, 'src'))
      .filter((name) => name.endsWith('.ts') && !name.endsWith('.d.ts'))
      .map((name) => join(projectDir, 'src', name))
  : [join(projectDir, 'src/index.ts')];
const common = {
  entryPoints,
  bundle: true,
  platform: 'neutral',
  target: 'es2022',
  external: [...Object.keys(dependencies), ...Object.keys(peerDependencies)],
  sourcemap: true,
  logLevel: 'warning',
};
await Promise.all([
  build({ ...common, format: 'cjs', outdir, outExtension: { '.js': '.cjs' } }),
  build({ ...common, format: 'esm', outdir, outExtension: { '.js': '.mjs' } }),
]);
// Declarations see a workspace library it depends on as that library's built declarations, the
// way a consumer of the published packages will, not as its sources (which lie outside rootDir).
const workspaceDeps = Object.keys(dependencies).filter((name) => name.startsWith('@paneflow/'));
const declarationConfig = join(tmpdir(), `pf-build-lib-${process.pid}.json`);
writeFileSync(
  declarationConfig,
  JSON.stringify({
    extends: join(projectDir, 'tsconfig.lib.json'),
    include: [join(projectDir, 'src/**/*.ts')],
    compilerOptions: {
      paths: Object.fromEntries(workspaceDeps.map((name) => [name, [join(root, 'libs', name.slice('@paneflow/'.length), 'dist/index.d.ts')]])),
    },
  }),
);
try {
  execFileSync(
    process.execPath,
    [
      join(root, 'node_modules/typescript/bin/tsc'),
      '-p', declarationConfig,
      '--noEmit', 'false', '--declaration', '--emitDeclarationOnly',
      '--rootDir', join(projectDir, 'src'), '--outDir', outdir,
    ],
    { stdio: 'inherit' },
  );
} finally {
  rmSync(declarationConfig, { force: true });
}

/**
 * The ES module view of the declarations. Beside a package without `"type": "module"`, a .d.ts is
 * read as CommonJS, so an importer would be allowed a default import that index.mjs lacks; each
 * .d.mts is the same text with its relative specifiers pointing at .mjs (which TypeScript maps to
 * the .d.mts beside it).
 */
function writeModuleDeclarations(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.d.ts')) continue;
    const file = join(entry.parentPath, entry.name);
    const text = readFileSync(file, 'utf8').replace(/(\bfrom\s*|\bimport\s*\(\s*)(['"])(\.{1,2}\/[^'"]*)\2/g, (_, lead, quote, specifier) => {
      const target = [`${specifier}.d.ts`, `${specifier}/index.d.ts`].find((candidate) => existsSync(join(dirname(file), candidate)));
      if (!target) throw new Error(`${file}: no declarations for ${specifier}`);
      return `${lead}${quote}${target.slice(0, -'.d.ts'.length)}.mjs${quote}`;
    });
    writeFileSync(file.slice(0, -'.d.ts'.length) + '.d.mts', text);
  }
}
if (JSON.stringify(exports).includes('.d.mts')) writeModuleDeclarations(outdir);
