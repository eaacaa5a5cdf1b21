// Builds the desktop: Electron's main process and preload (CommonJS, `electron` external) and the
// renderer for the browser (one script, the runtime catalog inlined, xterm's stylesheet beside it).
import { build } from 'esbuild';
import { copyFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { runtimeCatalog } from '../../tools/esbuild-runtimes.mjs';

const here = import.meta.dirname;
const dist = join(here, 'dist');
const require = createRequire(import.meta.url);
const common = { bundle: true, sourcemap: 'linked', logLevel: 'warning', define: { PANEFLOW_BUILD_ID: '"desktop"' } };

await Promise.all([
  build({ ...common, entryPoints: [join(here, 'src/main/main.ts')], outfile: join(dist, 'main.cjs'), platform: 'node', target: 'node20', format: 'cjs', external: ['electron', 'node-pty'] }),
  build({ ...common, entryPoints: [join(here, 'src/main/preload.ts')], outfile: join(dist, 'preload.cjs'), platform: 'node', target: 'node20', format: 'cjs', external: ['electron'] }),
  build({ ...common, entryPoints: [join(here, 'src/renderer/index.ts')], outfile: join(dist, 'renderer/renderer.js'), platform: 'browser', target: 'chrome120', format: 'iife', plugins: [runtimeCatalog] }),
]);
mkdirSync(join(dist, 'renderer'), { recursive: true });
for (const file of ['index.html', 'styles.css']) copyFileSync(join(here, 'src/renderer', file), join(dist, 'renderer', file));
copyFileSync(require.resolve('@xterm/xterm/css/xterm.css'), join(dist, 'renderer/xterm.css'));
