import { connectHost, resolveEndpoints } from '@paneflow/instance';
import type { Manifest } from '@paneflow/protocol';
import type { ParamsOf, PublicMethods, ResultOf } from '@paneflow/protocol';
import { call, RpcConnection } from '@paneflow/rpc';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scaled } from '@paneflow/testing';

export const ROOT = join(__dirname, '../../..');
export const SERVE_BIN = join(ROOT, 'apps/serve/dist/paneflow-serve.cjs');
export const HOST_BIN = join(ROOT, 'apps/host/dist/paneflow-host.cjs');
export const FIXTURE_AGENT = join(ROOT, 'fixtures/agent.mjs');

export type Frame = { type: string; at_ms: number; surface_id?: number } & Record<string, unknown>;

export interface InstanceOptions {
  scripting?: boolean;
  orchestration?: boolean;
  config?: unknown;
}

/**
 * A real instance in a temp home: serve started the way users start it (it starts the host),
 * `claude` on its PATH running the fixture agent.
 */
export async function startInstance(options: InstanceOptions = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'pf-serve-'));
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  symlinkSync(FIXTURE_AGENT, join(bin, 'claude'));
  const configFile = join(dir, 'config.json');
  if (options.config !== undefined) writeFileSync(configFile, typeof options.config === 'string' ? options.config : JSON.stringify(options.config));
  // A home of its own: login shells in panes must not run the developer's dotfiles.
  mkdirSync(join(dir, 'user'));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: join(dir, 'user'),
    PANEFLOW_HOME: join(dir, 'home'),
    XDG_RUNTIME_DIR: join(dir, 'run'),
    PANEFLOW_CONFIG: configFile,
    PATH: `${bin}:${process.env.PATH}`,
    SHELL: '/bin/bash',
    PANEFLOW_IPC_SCRIPTING: options.scripting ? '1' : '',
    PANEFLOW_IPC_ORCHESTRATION: options.orchestration ? '1' : '',
  };
  for (const key of ['PANEFLOW_SOCKET_PATH', 'PANEFLOW_HOST_ENDPOINT', 'PANEFLOW_WORKSPACE_ID', 'PANEFLOW_SESSION_ID']) delete env[key];
  const started = serveCli(env, 'start');
  if (started.code !== 0) throw new Error(`paneflow-serve start failed: ${started.stderr}`);
  const endpoints = resolveEndpoints(env);
  const subscriptions: RpcConnection<PublicMethods>[] = [];
  const instance = {
    dir,
    env,
    endpoints,
    configFile,
    servePid: JSON.parse(started.stdout).pid as number,
    call<M extends keyof PublicMethods & string>(method: M, params: ParamsOf<PublicMethods, M>): Promise<ResultOf<PublicMethods, M>> {
      return call<PublicMethods, M>(endpoints.publicSocket, method, params);
    },
    async subscribe(params: ParamsOf<PublicMethods, 'events.subscribe'> = {}) {
      const stream = await EventStream.open(endpoints.publicSocket, params);
      subscriptions.push(stream.connection);
      return stream;
    },
    hostPid(): number {
      return JSON.parse(readFileSync(join(env.PANEFLOW_HOME!, 'host/instance.json'), 'utf8')).pid;
    },
    /** The host's own list of sessions (its manifests), asked on a connection of the test's. */
    async hostSessions(): Promise<Manifest[]> {
      const { connection } = await connectHost(endpoints, 'serve-test');
      try {
        return (await connection.request('session.list', {})).sessions;
      } finally {
        connection.destroy();
      }
    },
    serveLog(): string {
      return readFileSync(join(env.PANEFLOW_HOME!, 'serve/serve.log'), 'utf8');
    },
    async cleanup() {
      for (const s of subscriptions) s.destroy();
      serveCli(env, 'stop', '--drain-ms', '100');
      spawnSync(process.execPath, [HOST_BIN, 'stop', '--force'], { env, timeout: 30_000 });
      for (const pid of [instance.servePid, safe(() => instance.hostPid())]) if (pid) killIfAlive(pid);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return instance;
}
export type Instance = Awaited<ReturnType<typeof startInstance>>;

const safe = <T>(f: () => T): T | null => {
  try {
    return f();
  } catch {
    return null;
  }
};

export function serveCli(env: NodeJS.ProcessEnv, ...args: string[]) {
  const result = spawnSync(process.execPath, [SERVE_BIN, ...args], { env, encoding: 'utf8', timeout: 30_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

export function killIfAlive(pid: number) {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // gone already
  }
}

/** Waits (up to 5 s) until `pid` is gone. */
export async function waitUntilGone(pid: number) {
  for (let i = 0; i < 500; i++) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** An `events.subscribe` stream and every frame it has received. */
export class EventStream {
  readonly frames: Frame[] = [];
  private waiters: Array<() => void> = [];
  private constructor(
    readonly connection: RpcConnection<PublicMethods>,
    readonly result: ResultOf<PublicMethods, 'events.subscribe'>,
    private readonly listener?: (frame: Frame) => void,
  ) {}

  /** A subscription; `listener`, when given, hears each frame too, as it is received. */
  static async open(path: string, params: ParamsOf<PublicMethods, 'events.subscribe'>, listener?: (frame: Frame) => void) {
    const connection = await RpcConnection.connect<PublicMethods>(path);
    const pending: Frame[] = [];
    let stream: EventStream | null = null;
    connection.onFrame((frame) => {
      if (stream) stream.receive(frame as Frame);
      else pending.push(frame as Frame);
    });
    const result = await connection.request('events.subscribe', params);
    stream = new EventStream(connection, result, listener);
    for (const frame of pending) stream.receive(frame);
    return stream;
  }

  private receive(frame: Frame) {
    this.frames.push(frame);
    this.listener?.(frame);
    for (const waiter of this.waiters.splice(0)) waiter();
  }

  /** The first frame from `from` on (an index into `frames`) that passes `test`. */
  next(test: (frame: Frame) => boolean, from = 0, timeoutMs = scaled(20_000)): Promise<Frame> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no matching frame in ${timeoutMs} ms; last: ${JSON.stringify(this.frames.slice(-4))}`)), timeoutMs);
      let seen = from;
      const check = () => {
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

  get mark(): number {
    return this.frames.length;
  }
}

/** Polls a read of the pane until its text matches (each poll is one real request). */
export async function screenMatching(instance: Instance, surfaceId: number, pattern: RegExp, timeoutMs = scaled(20_000)): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { text } = await instance.call('surface.read', { surface_id: surfaceId, lines: 4000, fenced: false });
    if (pattern.test(text)) return text;
    if (Date.now() > deadline) throw new Error(`screen never matched ${pattern}:\n${text}`);
    await new Promise((resolve) => setTimeout(resolve, 30));
  }
}
