// Packs what people install (`npm run package` builds everything first), as npm tarballs in an
// output directory (default out/):
// - `paneflow`: the bundles of every program the root package.json's `bin` names, side by side in
//   one directory (the CLI's families and sibling programs are found beside the running bundle),
//   with node-pty, the one module the bundles keep external, as the only dependency, the Node-API
//   modules the apps' builds make (for this machine's architecture) beside them; and in
//   `desktop/`, where `paneflow web` looks, the web face's server and the renderer's files;
// - each published library, packed from its own folder as its package.json describes it.
// Usage: node tools/package.mjs [outdir]
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
// The libraries published on their own. The paneflow package bundles all of them; @paneflow/protocol
// would come with the first of reducer and spec to be published, which name it as a dependency.
const LIBRARIES = ['libs/osc7501'];
/** Where each run-time bundle is in a checkout and once installed: the layout programs.ts reads too. */
const LAYOUT = JSON.parse(readFileSync(join(root, 'libs/instance/src/layout.json'), 'utf8'));
/** The web face (`paneflow web`): the desktop's build of its server, and the renderer's files it serves. */
const WEB = { server: join('apps', LAYOUT.web.server.checkout), assets: join('apps', LAYOUT.web.assets.checkout) };
const readJson = (path) => JSON.parse(readFileSync(path, 'utf8'));

/** The outfiles of a build step in an app's build: the odd arguments after `tools/<tool>` (pairs of source and outfile). */
function buildOutputs(appDir, tool) {
  const steps = readJson(join(root, appDir, 'project.json')).targets.build.command.split('&&').map((step) => step.trim().split(/\s+/));
  return steps.flatMap((step) => {
    const at = step.indexOf(`tools/${tool}`);
    return at === -1 ? [] : step.slice(at + 1).filter((_, i) => i % 2 === 1);
  });
}

/** The bundles an app's build writes: the outfiles of its `tools/build-app.mjs <entry> <outfile>…` command. */
function appBundles(appDir) {
  const bundles = buildOutputs(appDir, 'build-app.mjs');
  if (bundles.length === 0) throw new Error(`${appDir}: its build is not tools/build-app.mjs, so its bundles are unknown`);
  return bundles;
}

/** Stages the `paneflow` package: every bundle of the apps behind the root's bins, in one flat directory. */
function stagePaneflow(stage) {
  const manifest = readJson(join(root, 'package.json'));
  const apps = [...new Set(Object.values(manifest.bin).map((bin) => dirname(dirname(bin))))];
  const bundles = apps.flatMap(appBundles);
  const names = bundles.map((bundle) => basename(bundle));
  const clash = names.find((name, i) => names.indexOf(name) !== i);
  if (clash) throw new Error(`two apps build ${clash}; the package puts every bundle in one directory`);
  const missing = bundles.filter((bundle) => !existsSync(join(root, bundle)));
  if (missing.length > 0) throw new Error(`not built: ${missing.join(', ')} (npm run build)`);
  for (const bundle of bundles) copyFileSync(join(root, bundle), join(stage, basename(bundle)));
  // Node-API modules (`tools/build-native.mjs`) go beside the bundles that load them, built for this
  // system's architecture; one the build could not make is left out, and its program goes on without it.
  for (const module of apps.flatMap((app) => buildOutputs(app, 'build-native.mjs'))) {
    if (existsSync(join(root, module))) copyFileSync(join(root, module), join(stage, basename(module)));
    else process.stderr.write(`package: ${module} is not built; the package goes without it\n`);
  }
  // What programs.ts will look for once installed must be what was staged.
  for (const [program, place] of Object.entries(LAYOUT.programs)) {
    if (!names.includes(place.installed)) throw new Error(`layout.json installs ${program} as ${place.installed}, which no bin's app builds`);
  }
  stageWeb(stage);
  copyFileSync(join(root, 'README.md'), join(stage, 'README.md'));
  const { name, version, description, license, engines } = manifest;
  writeFileSync(
    join(stage, 'package.json'),
    JSON.stringify(
      {
        name,
        version,
        description,
        license,
        engines,
        bin: Object.fromEntries(Object.entries(manifest.bin).map(([command, bin]) => [command, basename(bin)])),
        dependencies: { 'node-pty': manifest.dependencies['node-pty'] },
      },
      null,
      2,
    ) + '\n',
  );
}

/** The web face's server and the files of its page (not Electron's index.html, not the source maps), where the layout puts them under `dir`. */
function stageWeb(dir) {
  const missing = [WEB.server, join(WEB.assets, 'web.html')].filter((path) => !existsSync(join(root, path)));
  if (missing.length > 0) throw new Error(`not built: ${missing.join(', ')} (npm run build)`);
  mkdirSync(join(dir, LAYOUT.web.assets.installed), { recursive: true });
  copyFileSync(join(root, WEB.server), join(dir, LAYOUT.web.server.installed));
  for (const file of readdirSync(join(root, WEB.assets)).filter((name) => !name.endsWith('.map') && name !== 'index.html')) {
    copyFileSync(join(root, WEB.assets, file), join(dir, LAYOUT.web.assets.installed, file));
  }
}

/** `npm pack` of a directory into outdir; returns what npm reports of the tarball. */
function pack(dir, outdir) {
  const out = execFileSync('npm', ['pack', '--json', '--pack-destination', outdir], { cwd: dir, encoding: 'utf8' });
  const [{ filename, size, unpackedSize, entryCount }] = JSON.parse(out);
  return { filename, size, unpackedSize, entryCount };
}

const outdir = resolve(process.argv[2] ?? join(root, 'out'));
mkdirSync(outdir, { recursive: true });
const stage = mkdtempSync(join(tmpdir(), 'pf-package-'));
try {
  stagePaneflow(stage);
  const tarballs = [pack(stage, outdir), ...LIBRARIES.map((lib) => pack(join(root, lib), outdir))];
  for (const { filename, size, unpackedSize, entryCount } of tarballs) {
    const kib = (bytes) => `${Math.round(bytes / 1024)} KiB`;
    process.stdout.write(`${relative(process.cwd(), join(outdir, filename))}  ${kib(size)} (${kib(unpackedSize)} unpacked, ${entryCount} files)\n`);
  }
} finally {
  rmSync(stage, { recursive: true, force: true });
}
