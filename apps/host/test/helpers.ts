import { type Endpoints, readHostSecret, resolveEndpoints } from '@paneflow/instance';
import { processEnvironment, processStartTime, isSameProcess } from '@paneflow/proc';
import { HOST_PROTOCOL_VERSION, type HostFrame, type HostMethods, type OutputFrame, type ParamsOf } from '@paneflow/protocol';
import { RpcConnection } from '@paneflow/rpc';
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scaled } from '@paneflow/testing';

export const ROOT = join(__dirname, '../../..');
/** The bundled host; PANEFLOW_TEST_HOST_BIN runs the tests against another build of it. */
export const HOST_BIN = process.env.PANEFLOW_TEST_HOST_BIN ?? join(ROOT, 'apps/host/dist/paneflow-host.cjs');
export const FIXTURE_AGENT = join(ROOT, 'fixtures/agent.mjs');

/** Runs the bundled `paneflow-host` with the test home's environment. */
export function hostCli(env: NodeJS.ProcessEnv, ...args: string[]) {
  const result = spawnSync(process.execPath, [HOST_BIN, ...args], { env, encoding: 'utf8', timeout: 30_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Resolves once `test` holds, checked every 20 ms; a deadline that bounds a hang, never a speed. */
/**
 * Reads a raw socket that was left unread (a stalled follower or mirror) from where it stands: every
 * pushed frame, in order, until `last` matches one; the answer to the request itself is skipped.
 */
export function readFramesUntil<F extends { type: string }>(socket: Socket, last: (frame: F) => boolean): { frames: F[]; done: Promise<void> } {
  const frames: F[] = [];
  const done = new Promise<void>((resolve) => {
    let rest = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      const lines = (rest + chunk).split('\n');
      rest = lines.pop()!;
      for (const message of lines.map((line) => JSON.parse(line))) {
        if (!('type' in message)) continue;
        frames.push(message);
        if (last(message)) resolve();
      }
    });
  });
  socket.resume();
  return { frames, done };
}

export async function waitUntil(test: () => boolean, what: string, timeoutMs = scaled(20_000)): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!test()) {
    if (Date.now() > deadline) throw new Error(`never: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export interface TestHost {
  dir: string;
  env: NodeJS.ProcessEnv;
  endpoints: Endpoints;
  /** The host that runs now: the one the last `start` (or `track`) named. */
  pid: number;
  /** `paneflow-host start` in this home; the host it names is tracked, so cleanup ends it. */
  start(): { pid: number; adopted: boolean };
  /** A host of this home started another way: cleanup ends it too. */
  track(pid: number): void;
  connect(): Promise<HostClient>;
  /** A connection that has said hello, closed at cleanup. */
  open(client?: string): Promise<RpcConnection<HostMethods>>;
  /** Following output of `session` from `offset` on its own connection, closed at cleanup. */
  outputStream(session: string, offset: number, keepalive?: boolean): Promise<OutputStream>;
  /**
   * Stops the hosts this test started (each only if it is still that process), ends whatever still
   * runs in their panes (orphans of a killed host too), then fails if anything of this home still
   * runs; the temp home is removed in any case.
   */
  cleanup(): Promise<void>;
}

/** Processes that run with this home in their environment: its hosts and its panes' processes. */
export function processesOfHome(home: string, what: 'all' | 'panes' = 'all'): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid === process.pid || !running(pid)) continue;
    const env = processEnvironment(pid);
    if (env?.PANEFLOW_HOME !== home) continue;
    if (what === 'panes' && env.PANEFLOW_SESSION_ID === undefined) continue;
    found.push(pid);
  }
  return found;
}

function commandLine(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    return [];
  }
}

/** A temp home with its own runtime dir, where nothing runs yet. */
export function makeHostHome(): TestHost {
  const dir = mkdtempSync(join(tmpdir(), 'pf-host-'));
  // A home of its own: shells in panes must not run the developer's dotfiles.
  mkdirSync(join(dir, 'user'));
  const home = join(dir, 'home');
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: join(dir, 'user'), PANEFLOW_HOME: home, XDG_RUNTIME_DIR: join(dir, 'run') };
  delete env.PANEFLOW_SOCKET_PATH;
  delete env.PANEFLOW_HOST_ENDPOINT;
  const endpoints = resolveEndpoints(env);
  const clients: HostClient[] = [];
  const connections: Array<RpcConnection<HostMethods>> = [];
  const hosts: Array<{ pid: number; startedAt: number }> = [];
  // Still the host this test started: the same pid and start time, and serving this home.
  const isOurs = (host: { pid: number; startedAt: number }) => isSameProcess(host.pid, host.startedAt) && commandLine(host.pid).includes(home);
  const open = async (client = 'test') => {
    const connection = await RpcConnection.connect<HostMethods>(endpoints.hostSocket);
    connections.push(connection);
    await connection.request('host.hello', { client, protocol: HOST_PROTOCOL_VERSION, secret: readHostSecret(home) ?? undefined });
    return connection;
  };
  const testHost: TestHost = {
    dir,
    env,
    endpoints,
    pid: 0,
    start() {
      const started = hostCli(env, 'start');
      if (started.code !== 0) throw new Error(`paneflow-host start failed: ${started.stderr}`);
      const info = JSON.parse(started.stdout);
      testHost.track(info.pid);
      return info;
    },
    track(pid) {
      testHost.pid = pid;
      const startedAt = processStartTime(pid);
      if (startedAt !== null && !hosts.some((h) => h.pid === pid && h.startedAt === startedAt)) hosts.push({ pid, startedAt });
    },
    connect: async () => {
      const client = await HostClient.connect(endpoints);
      clients.push(client);
      return client;
    },
    open,
    outputStream: async (session, offset, keepalive) => {
      const connection = await open('mirror');
      const stream = new OutputStream(connection);
      stream.result = await connection.request('session.output', { session, offset, follow: true, keepalive });
      return stream;
    },
    cleanup: async () => {
      try {
        for (const client of clients) client.close();
        for (const connection of connections) connection.destroy();
        if (hosts.some(isOurs)) hostCli(env, 'stop', '--force');
        for (const host of hosts) if (isOurs(host)) killIfAlive(host.pid);
        // A killed host leaves its panes' processes running: they are this test's to end.
        for (const pid of processesOfHome(home, 'panes')) killIfAlive(pid);
        const left = () => processesOfHome(home);
        await waitUntil(() => left().length === 0, 'nothing of this home runs').catch(() => {
          const names = left().map((pid) => `${pid}: ${commandLine(pid).join(' ')}`);
          for (const pid of left()) killIfAlive(pid);
          throw new Error(`processes of ${home} still ran after cleanup (now killed):\n${names.join('\n')}`);
        });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
  return testHost;
}

/** A real host in a temp home with its own runtime dir, started the way users start it. */
export async function startHost(): Promise<TestHost> {
  const host = makeHostHome();
  host.start();
  return host;
}

export function killIfAlive(pid: number) {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // gone already
  }
}

/** True while the process runs (a zombie has exited). */
export function running(pid: number): boolean {
  return processStartTime(pid) !== null;
}

/** Frames as they arrive, and a wait for the first (received or still to come) that passes a test. */
export class FrameLog<F> {
  readonly frames: F[] = [];
  private waiters: Array<() => void> = [];

  push(frame: F) {
    this.frames.push(frame);
    for (const waiter of this.waiters.splice(0)) waiter();
  }

  /** The first frame from index `from` on that passes `test`. */
  wait<T extends F>(test: (frame: F) => frame is T, timeoutMs?: number, from?: number): Promise<T>;
  wait(test: (frame: F) => boolean, timeoutMs?: number, from?: number): Promise<F>;
  wait(test: (frame: F) => boolean, timeoutMs = scaled(20_000), from = 0): Promise<F> {
    return new Promise((resolve, reject) => {
      let seen = from;
      let check = () => undefined as void;
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== check);
        reject(new Error(`no matching frame within ${timeoutMs} ms; got ${JSON.stringify(this.frames.slice(-5)).slice(0, 2000)}`));
      }, timeoutMs);
      check = () => {
        for (; seen < this.frames.length; seen++) {
          if (test(this.frames[seen])) {
            clearTimeout(timer);
            resolve(this.frames[seen]);
            return;
          }
        }
        this.waiters.push(check);
      };
      check();
    });
  }
}

/** One `session.output` stream with `follow`: its frames as they come. */
export class OutputStream extends FrameLog<OutputFrame> {
  result: unknown;

  constructor(readonly connection: RpcConnection<HostMethods>) {
    super();
    connection.onFrame((frame) => this.push(frame as OutputFrame));
  }

  close() {
    this.connection.close();
  }
}

/** A connection that has said hello and follows the host's frames. */
export class HostClient {
  private readonly log = new FrameLog<HostFrame>();
  readonly frames = this.log.frames;

  private constructor(readonly connection: RpcConnection<HostMethods>) {
    connection.onFrame((frame) => this.log.push(frame as HostFrame));
  }

  static async connect(endpoints: Endpoints): Promise<HostClient> {
    const connection = await RpcConnection.connect<HostMethods>(endpoints.hostSocket);
    await connection.request('host.hello', { client: 'test', protocol: HOST_PROTOCOL_VERSION, secret: readHostSecret(endpoints.home) ?? undefined });
    const client = new HostClient(connection);
    await connection.request('agent.follow', {});
    await client.frame((f) => f.type === 'snapshot');
    return client;
  }

  request<M extends keyof HostMethods & string>(method: M, params: ParamsOf<HostMethods, M>) {
    return this.connection.request(method, params);
  }

  /** The first frame (already received, or from index `from` on, or still to come) that passes `test`. */
  frame<T extends HostFrame>(test: (frame: HostFrame) => frame is T, timeoutMs?: number, from?: number): Promise<T>;
  frame(test: (frame: HostFrame) => boolean, timeoutMs?: number, from?: number): Promise<HostFrame>;
  frame(test: (frame: HostFrame) => boolean, timeoutMs = scaled(20_000), from = 0): Promise<HostFrame> {
    return this.log.wait(test, timeoutMs, from);
  }

  /** Creates a session with test defaults. */
  create(params: Partial<ParamsOf<HostMethods, 'session.create'>>) {
    return this.request('session.create', {
      workspace_id: randomUUID(),
      surface_id: 1,
      cwd: tmpdir(),
      env: {},
      cols: 80,
      rows: 24,
      ...params,
    });
  }

  /** Re-reads the session after each output frame until its text matches. */
  async screenMatching(session: string, pattern: RegExp, timeoutMs = scaled(20_000)): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const count = this.frames.length;
      const { text } = await this.request('session.read', { session, lines: 4000 });
      if (pattern.test(text)) return text;
      if (Date.now() > deadline) throw new Error(`screen never matched ${pattern}:\n${text}`);
      await this.frame((f) => f.type === 'output' && f.session === session, Math.max(1, deadline - Date.now()), count).catch(() => undefined);
    }
  }

  close() {
    this.connection.close();
  }
}

export const records = (frame: HostFrame) => (frame.type === 'status' ? frame.records.map((r) => `${r.id ?? 'root'}:${r.state}`) : []);
