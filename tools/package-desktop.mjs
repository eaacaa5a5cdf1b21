// `npm run package:desktop [-- <electron-builder flags>]`: the desktop's installers for this
// platform (apps/desktop/electron-builder.json: AppImage and deb on Linux, dmg on macOS, nsis on
// Windows) into out/desktop. They are built from the Electron runtime in node_modules/electron, so
// that runtime comes first: where it is missing and cannot be fetched, one line says so, exit 1.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
// Fetched by npm exec when it runs, not a devDependency: 279 packages, ~95 MB and an install
// script that every `npm ci` would pay for, on machines that cannot build installers anyway.
const ELECTRON_BUILDER = 'electron-builder@26.17.0';
const electronDir = join(root, 'node_modules/electron');

function fail(why) {
  process.stderr.write(`package:desktop: ${why}; build the installers where Electron can be downloaded (apps/desktop/README.md)\n`);
  process.exit(1);
}

/** The Electron binary, fetched by electron's own installer (a no-op once it is there). */
function electronBinary() {
  if (!existsSync(join(electronDir, 'package.json'))) fail('electron is not installed (npm ci)');
  const { version } = JSON.parse(readFileSync(join(electronDir, 'package.json'), 'utf8'));
  const install = spawnSync(process.execPath, [join(electronDir, 'install.js')], { encoding: 'utf8' });
  const pathFile = join(electronDir, 'path.txt');
  const binary = existsSync(pathFile) ? join(electronDir, 'dist', readFileSync(pathFile, 'utf8').trim()) : null;
  if (install.status !== 0 || !binary || !existsSync(binary)) {
    const reason = `${install.stderr}`.split('\n').find((line) => line.trim()) ?? 'no binary after its installer ran';
    fail(`no Electron ${version} binary, and it cannot be fetched here (${reason.trim()})`);
  }
  return { version, dist: join(electronDir, 'dist') };
}

const electron = electronBinary();
execFileSync('npx', ['nx', 'run', 'desktop:build'], { cwd: root, stdio: 'inherit' });
execFileSync(
  'npm',
  [
    'exec', '--yes', `--package=${ELECTRON_BUILDER}`, '--',
    'electron-builder', '--projectDir', 'apps/desktop', '--config', 'electron-builder.json',
    `-c.electronVersion=${electron.version}`, `-c.electronDist=${electron.dist}`,
    ...process.argv.slice(2),
  ],
  { cwd: root, stdio: 'inherit' },
);
