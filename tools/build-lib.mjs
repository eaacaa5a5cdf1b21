// Builds a library for plain Node: dist/index.cjs (require), dist/index.mjs (import) and .d.ts files.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const projectDir = resolve(root, process.argv[2]);
const outdir = join(projectDir, 'dist');
const { dependencies = {}, peerDependencies = {} } = JSON.parse(readFileSync(join(projectDir, 'package.json'), 'utf8'));

rmSync(outdir, { recursive: true, force: true });
const common = {
  entryPoints: [join(projectDir, 'src/index.ts')],
  bundle: true,
  platform: 'neutral',
  target: 'es2022',
  external: [...Object.keys(dependencies), ...Object.keys(peerDependencies)],
  sourcemap: true,
  logLevel: 'warning',
};
await Promise.all([
  build({ ...common, format: 'cjs', outfile: join(outdir, 'index.cjs') }),
  build({ ...common, format: 'esm', outfile: join(outdir, 'index.mjs') }),
]);
execFileSync(
  process.execPath,
  [
    join(root, 'node_modules/typescript/bin/tsc'),
    '-p', join(projectDir, 'tsconfig.lib.json'),
    '--noEmit', 'false', '--declaration', '--emitDeclarationOnly',
    '--rootDir', join(projectDir, 'src'), '--outDir', outdir,
  ],
  { stdio: 'inherit' },
);
