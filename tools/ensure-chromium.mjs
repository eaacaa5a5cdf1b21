// The renderer's browser tests drive Debian's Chromium. Where it is missing this installs it when
// it can (as root, with apt-get), and otherwise says in one line what to install: a test run never
// waits on a browser that cannot start.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const CHROMIUM = '/usr/bin/chromium';
if (existsSync(CHROMIUM)) process.exit(0);

const hasAptGet = spawnSync('sh', ['-c', 'command -v apt-get'], { stdio: 'ignore' }).status === 0;
if (process.getuid?.() !== 0 || !hasAptGet) {
  console.error(`${CHROMIUM} is missing: the desktop's browser tests need Debian's chromium (sudo apt-get install chromium)`);
  process.exit(1);
}
console.error(`${CHROMIUM} is missing: installing Debian's chromium with apt-get`);
const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
try {
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  execFileSync('apt-get', ['install', '-y', '-qq', 'chromium'], { stdio: 'inherit', env });
} catch {
  console.error('apt-get install chromium failed');
  process.exit(1);
}
