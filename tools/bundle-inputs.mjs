// What each bundle was built from, beside it as `<bundle>.inputs.json`: the workspace's files that
// esbuild read (node_modules left out) and every runtime descriptor the catalog plugin inlines; a
// native module's, its C source (tools/build-native.mjs).
// tools/fresh-bundles.cjs refuses a test run against a bundle older than any of them.
import { readdirSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const runtimes = join(root, 'runtimes');

export function writeBundleInputs(outfile, metafile) {
  const inputs = Object.keys(metafile.inputs)
    .filter((input) => !input.includes('node_modules/') && !input.includes(':'))
    .map((input) => resolve(input));
  // The catalog plugin's virtual modules name no file: every descriptor counts.
  for (const name of readdirSync(runtimes, { recursive: true, encoding: 'utf8' })) if (name.endsWith('.toml')) inputs.push(join(runtimes, name));
  writeBuiltFrom(outfile, inputs);
}

/** Records that `outfile` was built from `inputs` (paths), for tools/fresh-bundles.cjs. */
export function writeBuiltFrom(outfile, inputs) {
  const names = inputs.map((input) => relative(root, resolve(input)));
  writeFileSync(`${outfile}.inputs.json`, JSON.stringify({ bundle: relative(root, resolve(outfile)), inputs: [...new Set(names)].sort() }, null, 1) + '\n');
}
