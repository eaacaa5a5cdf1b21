// A browser that cannot start fails the desktop tests at once with one line, and leaves nothing
// behind: no process, no instance, no socket, no temp directory, and nothing that keeps the test
// process alive.
// Needs no Chromium: the executables are a path where nothing is, a program that is no browser,
// and one that starts and never answers (given up after the launch timeout, and killed).
import { resolveEndpoints } from '@paneflow/instance';
import { isListening } from '@paneflow/rpc';
import { makeHome, ROOT, type Home } from '@paneflow/testing';
import { build } from 'esbuild';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

let home: Home;
let program: string;
/** The harness's process while it runs: a test that fails because it never ends kills it. */
let running: ChildProcess | null = null;

beforeAll(async () => {
  home = makeHome();
  // The harness in a process of its own, which must end by itself once the launch has failed,
  // as jest must: a server, a connection or a browser left open would keep it running.
  program = join(home.dir, 'open-desktop.cjs');
  const entry = `
    import { openDesktop } from './harness';
    openDesktop(process.env, undefined, process.argv[2], Number(process.argv[3])).then(
      (desktop) => desktop.close(),
      (error: Error) => {
        process.stderr.write(error.message + '\\n');
        process.exitCode = 1;
      },
    );`;
  await build({ stdin: { contents: entry, resolveDir: __dirname, loader: 'ts' }, outfile: program, bundle: true, platform: 'node', format: 'cjs', external: ['playwright-core', 'esbuild'], logLevel: 'warning', tsconfig: join(ROOT, 'tsconfig.base.json') });
});
afterAll(() => {
  running?.kill('SIGKILL');
  home?.cleanup();
});

/** The harness's temp directory, where Playwright makes the browser's profile. */
const tmp = () => join(home.dir, 'tmp');

/** Runs the harness with `executable` as Chromium until it ends, by itself. */
function openDesktopWith(executable: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  mkdirSync(tmp(), { recursive: true });
  // A launch that hangs is given up after 3 s here (60 s by default).
  const child = spawn(process.execPath, [program, executable, '3000'], { env: { ...home.env, TMPDIR: tmp(), NODE_PATH: join(ROOT, 'node_modules') } });
  running = child;
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve) =>
    child.once('close', (code) => {
      running = null;
      resolve({ code, stdout, stderr });
    }),
  );
}

/** Processes that name the temp home in their command line or environment (this one does not). */
function processesOfHome(): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (cmdline.includes(home.dir) || readFileSync(`/proc/${pid}/environ`, 'utf8').includes(home.dir)) found.push(`${pid} ${cmdline.replaceAll('\0', ' ')}`);
    } catch {
      // gone already, or another user's
    }
  }
  return found;
}

/** Socket files anywhere under `dir`. */
function socketsUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => join(dir, name))
    .filter((path) => statSync(path, { throwIfNoEntry: false })?.isSocket());
}

test.each([
  ['a path where nothing is', () => join(home.dir, 'no-chromium'), /^no Chromium at \S+\/no-chromium: install Debian's chromium \(apt-get install chromium\)$/],
  [
    'a program that is no browser',
    () => {
      const path = join(home.dir, 'not-chromium');
      writeFileSync(path, '#!/bin/sh\necho "not a browser: $1" >&2\nexit 1\n', { mode: 0o755 });
      return path;
    },
    /^Chromium at \S+\/not-chromium did not start: .+; it said: not a browser: --\S+$/,
  ],
  [
    'a program that starts and never answers',
    () => {
      const path = join(home.dir, 'silent-chromium');
      writeFileSync(path, '#!/bin/sh\nexec sleep 1000\n', { mode: 0o755 });
      return path;
    },
    /^Chromium at \S+\/silent-chromium did not start: Timeout 3000ms exceeded\.$/,
  ],
])('Chromium as %s: one line saying why, and nothing left behind', async (_what, executable, message) => {
  const opened = await openDesktopWith(executable());
  expect({ code: opened.code, stdout: opened.stdout }).toEqual({ code: 1, stdout: '' });
  expect(opened.stderr).toMatch(/^[^\n]*\n$/);
  expect(opened.stderr.trimEnd()).toMatch(message);

  expect(processesOfHome()).toEqual([]);
  const { publicSocket, hostSocket } = resolveEndpoints(home.env);
  expect({ serve: await isListening(publicSocket), host: await isListening(hostSocket) }).toEqual({ serve: false, host: false });
  expect(socketsUnder(home.dir)).toEqual([]);
  expect(readdirSync(tmp())).toEqual([]);
});
