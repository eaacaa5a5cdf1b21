import { lstatSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';

/** Where one instance keeps its state and its sockets (REFERENCE.md §1.1). */
export interface Endpoints {
  home: string;
  runtimeDir: string;
  /** serve's public socket, `paneflow.sock` */
  publicSocket: string;
  /** the host's private socket, `host.sock` */
  hostSocket: string;
}

type Env = Record<string, string | undefined>;

function defaultHome(env: Env): string {
  return env.XDG_STATE_HOME ? join(env.XDG_STATE_HOME, 'paneflow') : join(env.HOME || homedir(), '.local/state/paneflow');
}

/**
 * A home's short digest. node:crypto is loaded only here (a few milliseconds of OpenSSL set-up):
 * with the default home, a CLI verb's start never pays it (README: start-up budget).
 */
function homeDigest(home: string): string {
  return process.getBuiltinModule('node:crypto').createHash('sha256').update(home).digest('hex').slice(0, 12);
}

/** The instance named by the environment: `PANEFLOW_HOME`, the socket overrides, the runtime dir. */
export function resolveEndpoints(env: Env = process.env, uid: number = process.getuid!()): Endpoints {
  const standardHome = resolve(defaultHome(env));
  const home = env.PANEFLOW_HOME ? resolve(env.PANEFLOW_HOME) : standardHome;
  const base = env.XDG_RUNTIME_DIR ? join(env.XDG_RUNTIME_DIR, 'paneflow') : `/tmp/paneflow-${uid}`;
  // Two homes must never share a socket, so a non-default home gets a directory of its own.
  const runtimeDir = home === standardHome ? base : join(base, `h-${homeDigest(home)}`);
  return {
    home,
    runtimeDir,
    publicSocket: env.PANEFLOW_SOCKET_PATH ? resolve(env.PANEFLOW_SOCKET_PATH) : join(runtimeDir, 'paneflow.sock'),
    hostSocket: env.PANEFLOW_HOST_ENDPOINT ? resolve(env.PANEFLOW_HOST_ENDPOINT) : join(runtimeDir, 'host.sock'),
  };
}

export class UnsafeDirectoryError extends Error {
  constructor(
    readonly path: string,
    why: string,
  ) {
    super(`refusing runtime directory ${path}: ${why}`);
    this.name = 'UnsafeDirectoryError';
  }
}

/**
 * Checks that a directory is private to `uid`: a real directory (not a link), owned by it, with
 * no access for group or others. Anything else could let another user reach or replace a socket.
 */
export function checkPrivateDirectory(path: string, uid: number = process.getuid!()): void {
  const stat = lstatSync(path);
  if (stat.isSymbolicLink()) throw new UnsafeDirectoryError(path, 'it is a symbolic link');
  if (!stat.isDirectory()) throw new UnsafeDirectoryError(path, 'it is not a directory');
  if (stat.uid !== uid) throw new UnsafeDirectoryError(path, `it is owned by uid ${stat.uid}, not ${uid}`);
  const mode = stat.mode & 0o777;
  if (mode & 0o077) throw new UnsafeDirectoryError(path, `mode ${mode.toString(8).padStart(4, '0')}, must be 0700`);
}

/** The directories that keep other users from a socket directory: it, and the runtime dir above an `h-…` one. */
function guardingDirectories(dir: string): string[] {
  return /^h-[0-9a-f]{12}$/.test(basename(dir)) ? [dirname(dir), dir] : [dir];
}

/**
 * Creates the runtime directory (and its `h-…` child) with mode 0700, then checks each level and
 * the directories of both sockets (which PANEFLOW_SOCKET_PATH or PANEFLOW_HOST_ENDPOINT may put
 * elsewhere): a daemon never listens where its clients would refuse to connect.
 */
export function prepareRuntimeDir(endpoints: Endpoints, uid: number = process.getuid!()): void {
  // Level by level, so that nothing is created inside a directory that is refused.
  for (const dir of guardingDirectories(endpoints.runtimeDir)) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    checkPrivateDirectory(dir, uid);
  }
  for (const socket of [endpoints.publicSocket, endpoints.hostSocket]) {
    for (const dir of guardingDirectories(dirname(socket))) checkPrivateDirectory(dir, uid);
  }
}

export class UnsafeSocketError extends Error {
  constructor(
    readonly path: string,
    why: string,
  ) {
    super(`refusing socket ${path}: ${why}`);
    this.name = 'UnsafeSocketError';
  }
}

/**
 * What every client checks before it connects: the directories that guard the socket are private
 * to `uid` (checkPrivateDirectory), and the socket file is a socket owned by `uid`. Node cannot
 * read a peer's credentials (SO_PEERCRED), so the file's owner stands for the server's; the
 * private directory is what keeps anyone else from putting a socket there, or swapping it after
 * this check. A missing directory or socket throws lstat's ENOENT: nothing listens there.
 */
export function checkSocketPath(path: string, uid: number = process.getuid!()): void {
  for (const dir of guardingDirectories(dirname(path))) checkPrivateDirectory(dir, uid);
  const stat = lstatSync(path);
  if (stat.isSymbolicLink()) throw new UnsafeSocketError(path, 'it is a symbolic link');
  if (!stat.isSocket()) throw new UnsafeSocketError(path, 'it is not a socket');
  if (stat.uid !== uid) throw new UnsafeSocketError(path, `it is owned by uid ${stat.uid}, not ${uid}`);
}
