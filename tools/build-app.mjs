// Bundles an app into executable CommonJS files (native modules stay external) and stamps them
// with a build id: the hash of the bundles themselves, so that two builds of other code never
// share one. Arguments are pairs `<entry> <outfile>`; several pairs make bundles that run
// together (the CLI's entry and the families it loads) and share one id.
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { writeBundleInputs } from './bundle-inputs.mjs';
import { runtimeCatalog } from './esbuild-runtimes.mjs';

const args = process.argv.slice(2).map((p) => resolve(p));
if (args.length === 0 || args.length % 2 !== 0) throw new Error('usage: build-app.mjs <entry> <outfile> [<entry> <outfile>]…');
const pairs = [];
for (let i = 0; i < args.length; i += 2) pairs.push({ entry: args[i], outfile: args[i + 1] });
const PLACEHOLDER = '__PANEFLOW_BUILD_ID__';
const results = await Promise.all(
  pairs.map(({ entry, outfile }) =>
    build({
      entryPoints: [entry],
      outfile,
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'cjs',
      external: ['node-pty'],
      // Every library from its sources, through the base config's paths: esbuild otherwise reads the
      // tsconfig nearest each file, and a library without one reached another through node_modules,
      // which put that library's whole built dist into the bundle beside the sources.
      tsconfig: 'tsconfig.base.json',
      // `import()` of a builtin, written for laziness, becomes a `require` at the same place: the CLI
      // runs its bundles through vm.Script (apps/cli/src/code-cache.ts), where Node 20 has no
      // dynamic import without an experimental flag.
      supported: { 'dynamic-import': false },
      define: { PANEFLOW_BUILD_ID: JSON.stringify(PLACEHOLDER) },
      banner: { js: '#!/usr/bin/env node' },
      sourcemap: 'linked',
      logLevel: 'warning',
      plugins: [runtimeCatalog],
      metafile: true,
    }),
  ),
);
const codes = pairs.map(({ outfile }) => readFileSync(outfile, 'utf8'));
const hash = createHash('sha256');
for (const code of codes) hash.update(code);
const id = hash.digest('hex').slice(0, 12);
pairs.forEach(({ outfile }, i) => {
  writeFileSync(outfile, codes[i].replaceAll(PLACEHOLDER, id));
  chmodSync(outfile, 0o755);
  writeBundleInputs(outfile, results[i].metafile);
});
