// Tests that drive real programs need some of Debian's: Chromium for the renderer, tmux as the
// outer terminal of `paneflow attach`, sshd to attach over SSH, jemalloc, which the host runs on.
// Each argument is `<command>[=<package>]`, or `lib:<soname>=<package>` for a shared library;
// what is missing is installed when it can be (as root, with apt-get), and otherwise named in one
// line, so a test run never waits on a program that is not there.
import { execFileSync, spawnSync } from 'node:child_process';

const wanted = process.argv.slice(2).map((arg) => {
  const [command, pkg = command] = arg.split('=');
  return { command, pkg };
});
const has = (command) =>
  command.startsWith('lib:')
    ? spawnSync('sh', ['-c', `/sbin/ldconfig -p | grep -qF '${command.slice(4)} '`], { stdio: 'ignore' }).status === 0
    : spawnSync('sh', ['-c', `command -v ${command} || test -x /usr/sbin/${command}`], { stdio: 'ignore' }).status === 0;
const missing = wanted.filter(({ command }) => !has(command));
if (missing.length === 0) process.exit(0);

const packages = missing.map((m) => m.pkg);
if (process.getuid?.() !== 0 || !has('apt-get')) {
  console.error(`missing ${missing.map((m) => m.command).join(', ')}: the tests need Debian's ${packages.join(' ')} (sudo apt-get install ${packages.join(' ')})`);
  process.exit(1);
}
console.error(`missing ${missing.map((m) => m.command).join(', ')}: installing Debian's ${packages.join(' ')} with apt-get`);
const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
try {
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  execFileSync('apt-get', ['install', '-y', '-qq', ...packages], { stdio: 'inherit', env });
} catch {
  console.error(`apt-get install ${packages.join(' ')} failed`);
  process.exit(1);
}
