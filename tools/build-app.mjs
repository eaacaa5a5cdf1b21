// Bundles an app into one executable CommonJS file (native modules stay external) and stamps it
// with a build id: the hash of the bundle itself, so that two builds of other code never share one.
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { runtimeCatalog } from './esbuild-runtimes.mjs';

const [entry, outfile] = process.argv.slice(2).map((p) => resolve(p));
const PLACEHOLDER = '__PANEFLOW_BUILD_ID__';
await build({
  entryPoints: [entry],
  outfile,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  external: ['node-pty'],
  define: { PANEFLOW_BUILD_ID: JSON.stringify(PLACEHOLDER) },
  banner: { js: '#!/usr/bin/env node' },
  sourcemap: 'linked',
  logLevel: 'warning',
  plugins: [runtimeCatalog],
});
const code = readFileSync(outfile, 'utf8');
const id = createHash('sha256').update(code).digest('hex').slice(0, 12);
writeFileSync(outfile, code.replaceAll(PLACEHOLDER, id));
chmodSync(outfile, 0o755);
