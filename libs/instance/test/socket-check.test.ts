import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createConnection, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UnreachableError } from '@paneflow/rpc';
import { callChecked, checkSocketPath, connectChecked, prepareRuntimeDir, readHostSecret, resolveEndpoints } from '../src';
import type { PublicMethods } from '@paneflow/protocol/public-protocol';

let dir: string;
const servers: Server[] = [];
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'pf-socket-'))));
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
  rmSync(dir, { recursive: true, force: true });
});

/** A socket that counts the connections it accepts. */
async function listen(path: string) {
  const accepted: string[] = [];
  const server = createServer((socket) => {
    accepted.push('connection');
    socket.on('data', (data) => {
      accepted.push(String(data).trim());
      socket.end('{"jsonrpc":"2.0","id":1,"result":{"pong":true}}\n');
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(path, resolve));
  return accepted;
}

/** The runtime dir of a non-default home under `dir`, made as a daemon makes it. */
function runtime() {
  const endpoints = resolveEndpoints({ HOME: '/h', XDG_RUNTIME_DIR: dir, PANEFLOW_HOME: join(dir, 'home') });
  prepareRuntimeDir(endpoints);
  return endpoints;
}

describe('checkSocketPath: what every client checks before it connects', () => {
  test("the user's own socket in a private runtime dir passes, and a client gets its answer", async () => {
    const { publicSocket } = runtime();
    await listen(publicSocket);
    expect(() => checkSocketPath(publicSocket)).not.toThrow();
    await expect(callChecked<PublicMethods, 'system.ping'>(publicSocket, 'system.ping', {})).resolves.toEqual({ pong: true });
  });

  test('a socket in a directory others can write is refused, naming the directory and its mode, and nothing connects', async () => {
    const { runtimeDir, publicSocket } = runtime();
    chmodSync(runtimeDir, 0o777);
    const accepted = await listen(publicSocket);
    expect(() => checkSocketPath(publicSocket)).toThrow(`refusing runtime directory ${runtimeDir}: mode 0777, must be 0700`);
    await expect(callChecked<PublicMethods, 'system.ping'>(publicSocket, 'system.ping', {})).rejects.toThrow(/mode 0777/);
    await expect(connectChecked(publicSocket)).rejects.toThrow(/mode 0777/);
    // The socket does accept: this connection is the first it sees.
    const probe = createConnection(publicSocket);
    probe.resume().end('probe\n');
    await new Promise((resolve) => probe.once('close', resolve));
    expect(accepted).toEqual(['connection', 'probe']);
  });

  test('the runtime dir above an h- directory is checked too', async () => {
    const { runtimeDir, publicSocket } = runtime();
    chmodSync(join(dir, 'paneflow'), 0o755);
    await listen(publicSocket);
    expect(runtimeDir).toMatch(/\/h-[0-9a-f]{12}$/);
    expect(() => checkSocketPath(publicSocket)).toThrow(`refusing runtime directory ${join(dir, 'paneflow')}: mode 0755, must be 0700`);
  });

  test('a runtime dir that is a symbolic link to a private directory is refused', async () => {
    mkdirSync(join(dir, 'elsewhere'), { mode: 0o700 });
    symlinkSync(join(dir, 'elsewhere'), join(dir, 'link'));
    await listen(join(dir, 'elsewhere/paneflow.sock'));
    expect(() => checkSocketPath(join(dir, 'link/paneflow.sock'))).toThrow(`refusing runtime directory ${join(dir, 'link')}: it is a symbolic link`);
  });

  test('a socket path that is a symbolic link, or not a socket, is refused', async () => {
    const { runtimeDir } = runtime();
    await listen(join(runtimeDir, 'real.sock'));
    symlinkSync(join(runtimeDir, 'real.sock'), join(runtimeDir, 'paneflow.sock'));
    writeFileSync(join(runtimeDir, 'host.sock'), '');
    expect(() => checkSocketPath(join(runtimeDir, 'paneflow.sock'))).toThrow(`refusing socket ${join(runtimeDir, 'paneflow.sock')}: it is a symbolic link`);
    expect(() => checkSocketPath(join(runtimeDir, 'host.sock'))).toThrow(`refusing socket ${join(runtimeDir, 'host.sock')}: it is not a socket`);
  });

  const root = process.getuid!() === 0;
  (root ? test : test.skip)(`a socket owned by another uid is refused${root ? '' : ' (skipped: only root can give a socket to another uid)'}`, async () => {
    const { publicSocket } = runtime();
    await listen(publicSocket);
    chownSync(publicSocket, 4242, 4242);
    expect(() => checkSocketPath(publicSocket)).toThrow(`refusing socket ${publicSocket}: it is owned by uid 4242, not 0`);
  });

  test('no socket, or no runtime dir, is nothing listening (UnreachableError), as a refused connection is', async () => {
    const { publicSocket } = runtime();
    await expect(callChecked<PublicMethods, 'system.ping'>(publicSocket, 'system.ping', {})).rejects.toBeInstanceOf(UnreachableError);
    await expect(connectChecked(join(dir, 'absent/paneflow.sock'))).rejects.toBeInstanceOf(UnreachableError);
  });
});

describe('daemons refuse what clients would refuse', () => {
  test('a runtime dir above h- that others may write is refused before anything is made in it', () => {
    mkdirSync(join(dir, 'paneflow'), { mode: 0o777 });
    chmodSync(join(dir, 'paneflow'), 0o777);
    const endpoints = resolveEndpoints({ HOME: '/h', XDG_RUNTIME_DIR: dir, PANEFLOW_HOME: join(dir, 'home') });
    expect(() => prepareRuntimeDir(endpoints)).toThrow(`refusing runtime directory ${join(dir, 'paneflow')}: mode 0777, must be 0700`);
    expect(existsSync(endpoints.runtimeDir)).toBe(false);
  });

  test('a socket that PANEFLOW_SOCKET_PATH puts in a directory others may read is refused', () => {
    mkdirSync(join(dir, 'shared'), { mode: 0o755 });
    chmodSync(join(dir, 'shared'), 0o755);
    const endpoints = resolveEndpoints({ HOME: '/h', XDG_RUNTIME_DIR: dir, PANEFLOW_SOCKET_PATH: join(dir, 'shared/p.sock') });
    expect(() => prepareRuntimeDir(endpoints)).toThrow(`refusing runtime directory ${join(dir, 'shared')}: mode 0755, must be 0700`);
  });
});

test("the host's secret: none (a host from before secrets) is null; one that cannot be read is a clear error naming the file", () => {
  expect(readHostSecret(join(dir, 'home'))).toBeNull();
  mkdirSync(join(dir, 'home/host/secret'), { recursive: true });
  expect(() => readHostSecret(join(dir, 'home'))).toThrow(`cannot read the host's secret ${join(dir, 'home/host/secret')}: ${join(dir, 'home/host/secret')} refused: a directory, not a regular file`);
});
