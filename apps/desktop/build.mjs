// Builds the desktop: Electron's main process and preload (CommonJS, `electron` external) and the
// renderer for the browser (one script, the runtime catalog inlined, xterm's stylesheet beside it);
// and the web face: its server (`paneflow web` loads dist/web.cjs) and the page's API over a
// WebSocket (web.js), loaded by web.html before the renderer.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { writeBundleInputs } from '../../tools/bundle-inputs.mjs';
import { runtimeCatalog } from '../../tools/esbuild-runtimes.mjs';

const here = import.meta.dirname;
const dist = join(here, 'dist');
const require = createRequire(import.meta.url);
// Every library from its sources through the base config's paths, as tools/build-app.mjs does.
const common = { bundle: true, sourcemap: 'linked', logLevel: 'warning', metafile: true, tsconfig: 'tsconfig.base.json', define: { PANEFLOW_BUILD_ID: '"desktop"' } };

const bundles = await Promise.all([
  build({ ...common, entryPoints: [join(here, 'src/main/main.ts')], outfile: join(dist, 'main.cjs'), platform: 'node', target: 'node20', format: 'cjs', external: ['electron', 'node-pty'] }),
  build({ ...common, entryPoints: [join(here, 'src/main/preload.ts')], outfile: join(dist, 'preload.cjs'), platform: 'node', target: 'node20', format: 'cjs', external: ['electron'] }),
  build({ ...common, entryPoints: [join(here, 'src/renderer/index.ts')], outfile: join(dist, 'renderer/renderer.js'), platform: 'browser', target: 'chrome120', format: 'iife', plugins: [runtimeCatalog] }),
  // ws's optional native helpers: it runs without them.
  build({ ...common, entryPoints: [join(here, 'src/web/server.ts')], outfile: join(dist, 'web.cjs'), platform: 'node', target: 'node20', format: 'cjs', external: ['bufferutil', 'utf-8-validate'] }),
  build({ ...common, entryPoints: [join(here, 'src/web/page.ts')], outfile: join(dist, 'renderer/web.js'), platform: 'browser', target: 'chrome120', format: 'iife' }),
]);
// esbuild names its outputs from the working directory.
for (const { metafile } of bundles) writeBundleInputs(resolve(Object.keys(metafile.outputs).find((out) => !out.endsWith('.map'))), metafile);
mkdirSync(join(dist, 'renderer'), { recursive: true });
for (const file of ['index.html', 'styles.css', 'phone.css']) copyFileSync(join(here, 'src/renderer', file), join(dist, 'renderer', file));
// The web page is the renderer's own, with the API's script ahead of the renderer's.
const page = readFileSync(join(here, 'src/renderer/index.html'), 'utf8');
const renderer = '<script src="renderer.js"></script>';
if (!page.includes(renderer)) throw new Error(`src/renderer/index.html has no ${renderer}`);
writeFileSync(join(dist, 'renderer/web.html'), page.replace(renderer, `<script src="web.js"></script>\n    ${renderer}`));
copyFileSync(require.resolve('@xterm/xterm/css/xterm.css'), join(dist, 'renderer/xterm.css'));
