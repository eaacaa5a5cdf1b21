// The code V8 compiled of the CLI's bundles, kept per user and build (src/code-cache.ts): written
// once, then run from; a file that is not V8's or that others could write is never run from, and
// no cache at all leaves every verb as it was.
import { chmodSync, existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, makeHome, type Home } from '@paneflow/testing';
import { spawn } from 'node:child_process';

let home: Home;
let cache: string;
let build: string;
beforeAll(() => {
  home = makeHome();
  cache = join(home.dir, 'cache');
  home.env.XDG_CACHE_HOME = cache;
  build = /^paneflow (\w+)$/.exec(home.run(['--version']).stdout.trim())![1];
});
afterAll(() => home.cleanup());

const dir = () => join(cache, 'paneflow', 'code');
const kept = (bundle: string) => join(dir(), `${bundle}-${build}-${process.version}-${process.arch}.v8`);
/** What `ls` keeps: the entry's bundle and the panes family, each under its own name and no other file. */
const keptByLs = () => [kept('paneflow-main'), kept('paneflow-panes')].map((path) => path.slice(dir().length + 1));
/** `ls` with no instance: the entry's bundle and the panes family run, and say nothing answers. */
const ls = () => home.run(['ls']);

test("the first call keeps the entry's and its family's compiled code, the user's alone; the next runs from it and writes nothing; other builds' copies go", () => {
  const older = join(dir(), `paneflow-main-000000000000-${process.version}-${process.arch}.v8`);
  const first = ls();
  expect(first.code).toBe(1);
  expect(first.stderr).toMatch(/no Paneflow instance answers/);
  expect(readdirSync(dir()).sort()).toEqual(keptByLs());
  expect(statSync(dir()).mode & 0o777).toBe(0o700);
  for (const bundle of ['paneflow-main', 'paneflow-panes']) expect(statSync(kept(bundle)).mode & 0o777).toBe(0o600);

  writeFileSync(older, 'another build', { mode: 0o600 });
  const before = statSync(kept('paneflow-main'));
  const second = ls();
  expect({ code: second.code, stderr: second.stderr }).toEqual({ code: first.code, stderr: first.stderr });
  const after = statSync(kept('paneflow-main'));
  expect([after.ino, after.mtimeMs]).toEqual([before.ino, before.mtimeMs]);
  // Only a write clears the older copies: this call wrote none.
  expect(existsSync(older)).toBe(true);
  writeFileSync(kept('paneflow-main'), 'not V8 code');
  expect(ls().code).toBe(1);
  expect(existsSync(older)).toBe(false);
});

test('a kept file that is not V8 code, or that others could write, is not run from: the verb works and the file is made again', () => {
  ls();
  for (const [content, mode] of [
    ['not V8 code at all', 0o600],
    [readFileSync(kept('paneflow-panes')), 0o666],
  ] as const) {
    writeFileSync(kept('paneflow-panes'), content);
    chmodSync(kept('paneflow-panes'), mode);
    const run = ls();
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/no Paneflow instance answers/);
    expect(statSync(kept('paneflow-panes')).mode & 0o777).toBe(0o600);
    expect(readFileSync(kept('paneflow-panes')).subarray(0, 18).toString()).not.toBe('not V8 code at all');
  }
});

test('with no cache directory to be had, every verb is as it was', () => {
  const file = join(home.dir, 'a-file');
  writeFileSync(file, '');
  const homes: Record<string, string>[] = [{ XDG_CACHE_HOME: join(file, 'below') }, { XDG_CACHE_HOME: '', HOME: file }];
  for (const env of homes) {
    const run = home.run(['ls'], { env });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^paneflow: no Paneflow instance answers/);
    expect(home.run(['--version'], { env }).stdout).toBe(`paneflow ${build}\n`);
  }
});

test('calls that start together, each writing the first copy, leave one whole file per bundle and no other', async () => {
  rmSync(dir(), { recursive: true, force: true });
  const runs = await Promise.all(
    Array.from({ length: 4 }, () => {
      const child = spawn(process.execPath, [CLI, 'ls'], { env: home.env });
      let stderr = '';
      child.stderr.on('data', (chunk) => (stderr += chunk));
      return new Promise<{ code: number | null; stderr: string }>((resolve) => child.once('close', (code) => resolve({ code, stderr })));
    }),
  );
  for (const run of runs) expect(run).toEqual({ code: 1, stderr: expect.stringMatching(/^paneflow: no Paneflow instance answers/) });
  expect(readdirSync(dir()).sort()).toEqual(keptByLs());
  // Each copy is one V8 takes: the next call writes none again.
  const before = statSync(kept('paneflow-panes')).ino;
  expect(ls().code).toBe(1);
  expect(statSync(kept('paneflow-panes')).ino).toBe(before);
});
