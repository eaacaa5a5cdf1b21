import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { processStartTime } from '@paneflow/proc';
import { checkPrivateDirectory, LockFile, prepareRuntimeDir, readJson, resolveEndpoints, writeJsonAtomic, writeTextAtomicAsync } from '../src';

function tempDir(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'pf-instance-'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir()));
afterEach(() => cleanup());

describe('endpoints (REFERENCE.md §1.1)', () => {
  test('the default home and its sockets at the top of the runtime dir', () => {
    const e = resolveEndpoints({ HOME: '/home/me', XDG_RUNTIME_DIR: '/run/user/1000' }, 1000);
    expect(e).toEqual({
      home: '/home/me/.local/state/paneflow',
      runtimeDir: '/run/user/1000/paneflow',
      publicSocket: '/run/user/1000/paneflow/paneflow.sock',
      hostSocket: '/run/user/1000/paneflow/host.sock',
    });
    expect(resolveEndpoints({ HOME: '/h', XDG_STATE_HOME: '/s' }, 7)).toMatchObject({ home: '/s/paneflow', runtimeDir: '/tmp/paneflow-7' });
  });

  test('a non-default home gets a socket directory of its own', () => {
    const a = resolveEndpoints({ HOME: '/h', PANEFLOW_HOME: '/tmp/a' }, 7);
    const b = resolveEndpoints({ HOME: '/h', PANEFLOW_HOME: '/tmp/b' }, 7);
    expect(a.runtimeDir).toMatch(/^\/tmp\/paneflow-7\/h-[0-9a-f]{12}$/);
    expect(a.runtimeDir).not.toBe(b.runtimeDir);
    expect(resolveEndpoints({ HOME: '/h', PANEFLOW_HOME: '/h/.local/state/paneflow' }, 7).runtimeDir).toBe('/tmp/paneflow-7');
  });

  test('PANEFLOW_SOCKET_PATH and PANEFLOW_HOST_ENDPOINT override the sockets', () => {
    const e = resolveEndpoints({ HOME: '/h', PANEFLOW_SOCKET_PATH: '/x/p.sock', PANEFLOW_HOST_ENDPOINT: '/x/h.sock' }, 7);
    expect(e.publicSocket).toBe('/x/p.sock');
    expect(e.hostSocket).toBe('/x/h.sock');
  });

  test('the runtime dir and its h- child are created 0700', () => {
    const e = resolveEndpoints({ HOME: '/h', XDG_RUNTIME_DIR: dir, PANEFLOW_HOME: join(dir, 'home') });
    prepareRuntimeDir(e);
    expect(statSync(join(dir, 'paneflow')).mode & 0o777).toBe(0o700);
    expect(statSync(e.runtimeDir).mode & 0o777).toBe(0o700);
  });

  test('a runtime dir with a wider mode is refused with a clear error', () => {
    mkdirSync(join(dir, 'paneflow'));
    chmodSync(join(dir, 'paneflow'), 0o755);
    expect(() => prepareRuntimeDir(resolveEndpoints({ HOME: '/h', XDG_RUNTIME_DIR: dir }))).toThrow(
      `refusing runtime directory ${join(dir, 'paneflow')}: mode 0755, must be 0700`,
    );
  });

  test('a runtime dir owned by another user is refused', () => {
    mkdirSync(join(dir, 'mine'), { mode: 0o700 });
    const other = process.getuid!() + 1;
    expect(() => checkPrivateDirectory(join(dir, 'mine'), other)).toThrow(/owned by uid \d+, not \d+/);
  });

  test('a runtime dir that is a symbolic link or a file is refused', () => {
    mkdirSync(join(dir, 'real'), { mode: 0o700 });
    symlinkSync(join(dir, 'real'), join(dir, 'link'));
    writeFileSync(join(dir, 'file'), '');
    expect(() => checkPrivateDirectory(join(dir, 'link'))).toThrow(/symbolic link/);
    expect(() => checkPrivateDirectory(join(dir, 'file'))).toThrow(/not a directory/);
  });
});

describe('files', () => {
  test('writeJsonAtomic replaces the file whole and leaves no temp file', () => {
    const path = join(dir, 'state.json');
    writeJsonAtomic(path, { a: 1 });
    writeJsonAtomic(path, { a: 2, b: 'x' });
    expect(readJson(path)).toEqual({ a: 2, b: 'x' });
    expect(readdirSync(dir)).toEqual(['state.json']);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  test('writeTextAtomicAsync replaces the file whole with its mode and leaves no temp file, also when it fails', async () => {
    const path = join(dir, 'record.json');
    await writeTextAtomicAsync(path, 'one\n');
    await writeTextAtomicAsync(path, 'two\n', 0o640);
    expect(readFileSync(path, 'utf8')).toBe('two\n');
    expect(statSync(path).mode & 0o777).toBe(0o640);
    // Its target a directory: the rename fails, the old content stays, no temp file is left.
    mkdirSync(join(dir, 'taken'));
    await expect(writeTextAtomicAsync(join(dir, 'taken'), 'x')).rejects.toThrow(/EISDIR|EEXIST|ENOTEMPTY/);
    expect(readdirSync(dir).sort()).toEqual(['record.json', 'taken']);
  });

  test('readJson of a missing file is undefined', () => {
    expect(readJson(join(dir, 'none.json'))).toBeUndefined();
  });
});

describe('locks', () => {
  test('a lock is exclusive while its holder lives, and released', () => {
    const lock = new LockFile(join(dir, 'owner.lock'));
    expect(lock.tryAcquire()).toBeNull();
    expect(existsSync(lock.path)).toBe(true);
    lock.release();
    expect(existsSync(lock.path)).toBe(false);
  });

  test('a lock held by another live process is refused; one whose holder died is taken over', async () => {
    const path = join(dir, 'owner.lock');
    const child = spawn('sleep', ['30']);
    await new Promise((resolve) => child.once('spawn', resolve));
    writeFileSync(path, JSON.stringify({ pid: child.pid, started_at: processStartTime(child.pid!) }));
    expect(new LockFile(path).tryAcquire()).toEqual({ pid: child.pid, started_at: processStartTime(child.pid!) });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    expect(new LockFile(path).tryAcquire()).toBeNull();
    expect(readJson<{ pid: number }>(path)?.pid).toBe(process.pid);
  });

  test('a lock naming a live pid with another start time (a recycled pid) is stale', () => {
    const path = join(dir, 'owner.lock');
    writeFileSync(path, JSON.stringify({ pid: 1, started_at: 123456789 }));
    expect(new LockFile(path).tryAcquire()).toBeNull();
  });
});
