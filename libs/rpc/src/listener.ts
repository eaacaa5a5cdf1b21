import { chmodSync, lstatSync, rmSync, statSync, watch, type FSWatcher } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { basename, dirname } from 'node:path';

/** What `listen` does when its socket file is removed or replaced later. */
export interface KeepOptions {
  /** Runs before the socket is made again (the runtime directory may have to be made first). */
  prepare?: () => void;
}

/**
 * After its socket's directory changes, a listener waits this long with no further change before it
 * looks: an `rm -rf` of the runtime dir is over by then, where binding at once would refill the
 * directory under it ("Directory not empty", for as long as it tried).
 */
export const REBIND_SETTLE_MS = 200;

/** True when something accepts connections on the socket `path`. */
export function isListening(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection(path);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** The inode of what is at `path` now (not following a link), or null when nothing is. */
function inodeAt(path: string): number | null {
  try {
    return lstatSync(path).ino;
  } catch {
    return null;
  }
}

/**
 * A server's listening socket. `listen` binds the path (replacing a dead socket file; mode 0600).
 * With `keep`, a file removed or replaced later, or its directory removed, is bound again as soon as
 * the directory is quiet (REBIND_SETTLE_MS):
 * a server whose file is gone runs on unreachable, and nothing else would ever make it again. It
 * watches the directory (inotify on Linux), so an idle server never wakes for it. A path where
 * another server listens is never taken.
 */
export class SocketListener {
  private server: Server;
  private path: string | null = null;
  /** The socket file this listener made, known by its inode. */
  private bound: number | null = null;
  /** Listeners a new bind replaced; their connections go on until they end. */
  private readonly retired: Array<Promise<void>> = [];
  private watcher: FSWatcher | null = null;
  private watchedDir: number | null = null;
  private checking = false;
  private checkAgain = false;
  private settle: NodeJS.Timeout | null = null;

  constructor(
    private readonly accept: (socket: Socket) => void,
    private readonly log?: (message: string) => void,
  ) {
    this.server = this.create();
  }

  private create(): Server {
    const server = createServer(this.accept);
    server.on('error', (error) => this.log?.(`server error: ${error.message}`));
    return server;
  }

  async listen(path: string, keep?: KeepOptions): Promise<void> {
    await this.bind(path);
    if (keep) this.watch(keep);
  }

  private async bind(path: string): Promise<void> {
    if (await isListening(path)) throw new Error(`another process already listens on ${path}`);
    rmSync(path, { force: true });
    const server = this.server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(path, () => {
        server.off('error', reject);
        resolve();
      });
    });
    chmodSync(path, 0o600);
    this.path = path;
    this.bound = inodeAt(path);
  }

  /** Watches the socket's directory as it is now, unless that one is watched already. */
  private watch(keep: KeepOptions): void {
    const dir = dirname(this.path!);
    let ino: number;
    try {
      ino = statSync(dir).ino;
    } catch {
      return;
    }
    if (ino === this.watchedDir) return;
    this.unwatch();
    try {
      this.watcher = watch(dir, { persistent: false }, (_event, name) => {
        // The directory's own name (or none) may mean the directory itself went away.
        if (name === null || name === basename(this.path!) || name === basename(dir)) this.checkWhenSettled(keep);
      });
      this.watcher.on('error', (error) => this.log?.(`cannot watch ${dir}: ${error.message}`));
      this.watchedDir = ino;
    } catch (error) {
      this.log?.(`cannot watch ${dir}: ${(error as Error).message}; a removed socket will not be made again`);
    }
  }

  /** A check once the directory has been quiet for REBIND_SETTLE_MS (a timer only after a change). */
  private checkWhenSettled(keep: KeepOptions): void {
    if (this.settle) clearTimeout(this.settle);
    this.settle = setTimeout(() => {
      this.settle = null;
      void this.check(keep);
    }, REBIND_SETTLE_MS);
    this.settle.unref();
  }

  private unwatch(): void {
    this.watcher?.close();
    this.watcher = null;
    this.watchedDir = null;
  }

  /** Binds the path again when its file is not the one bound; one check at a time, again if asked meanwhile. */
  private async check(keep: KeepOptions): Promise<void> {
    const path = this.path;
    if (!path) return; // closed
    if (this.checking) {
      this.checkAgain = true;
      return;
    }
    this.checking = true;
    try {
      if (inodeAt(path) !== this.bound) {
        // Closing a listener removes the file at its path (libuv): never another server's.
        if (await isListening(path)) throw new Error('another process listens on it');
        keep.prepare?.();
        const old = this.server;
        this.server = this.create();
        this.retired.push(new Promise((resolve) => old.close(() => resolve())));
        await this.bind(path);
        this.log?.(`${path} was removed or replaced; listening on it again`);
      }
    } catch (error) {
      this.log?.(`cannot listen on ${path} again: ${(error as Error).message}`);
    } finally {
      this.checking = false;
    }
    if (!this.path) return;
    this.watch(keep);
    if (this.checkAgain) {
      this.checkAgain = false;
      await this.check(keep);
    }
  }

  /** Stops accepting and removes the socket file; resolves once every connection accepted has ended. */
  async close(): Promise<void> {
    this.unwatch();
    if (this.settle) clearTimeout(this.settle);
    await Promise.all([new Promise<void>((resolve) => this.server.close(() => resolve())), ...this.retired]);
    if (this.path) rmSync(this.path, { force: true });
    this.path = null;
  }
}
