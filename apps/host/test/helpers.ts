import { type Endpoints, readHostSecret, resolveEndpoints } from '@paneflow/instance';
import { HOST_PROTOCOL_VERSION, type HostFrame, type HostMethods, type ParamsOf } from '@paneflow/protocol';
import { RpcConnection } from '@paneflow/rpc';
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const ROOT = join(__dirname, '../../..');
export const HOST_BIN = join(ROOT, 'apps/host/dist/paneflow-host.cjs');
export const FIXTURE_AGENT = join(ROOT, 'fixtures/agent.mjs');

/** Runs the bundled `paneflow-host` with the test home's environment. */
export function hostCli(env: NodeJS.ProcessEnv, ...args: string[]) {
  const result = spawnSync(process.execPath, [HOST_BIN, ...args], { env, encoding: 'utf8', timeout: 30_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

export interface TestHost {
  dir: string;
  env: NodeJS.ProcessEnv;
  endpoints: Endpoints;
  pid: number;
  connect(): Promise<HostClient>;
  /** Stops the host (and every session), by force, and removes the temp home. */
  cleanup(): Promise<void>;
}

/** A real host in a temp home with its own runtime dir, started the way users start it. */
export async function startHost(): Promise<TestHost> {
  const dir = mkdtempSync(join(tmpdir(), 'pf-host-'));
  // A home of its own: shells in panes must not run the developer's dotfiles.
  mkdirSync(join(dir, 'user'));
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: join(dir, 'user'), PANEFLOW_HOME: join(dir, 'home'), XDG_RUNTIME_DIR: join(dir, 'run') };
  delete env.PANEFLOW_SOCKET_PATH;
  delete env.PANEFLOW_HOST_ENDPOINT;
  const started = hostCli(env, 'start');
  if (started.code !== 0) throw new Error(`paneflow-host start failed: ${started.stderr}`);
  const info = JSON.parse(started.stdout);
  const endpoints = resolveEndpoints(env);
  const clients: HostClient[] = [];
  return {
    dir,
    env,
    endpoints,
    pid: info.pid,
    connect: async () => {
      const client = await HostClient.connect(endpoints);
      clients.push(client);
      return client;
    },
    cleanup: async () => {
      for (const client of clients) client.close();
      hostCli(env, 'stop', '--force');
      killIfAlive(info.pid);
      rmSync(dir, { recursive: true, force: true });
    },
  };
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
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/** A connection that has said hello and follows the host's frames. */
export class HostClient {
  readonly frames: HostFrame[] = [];
  private waiters: Array<() => void> = [];

  private constructor(readonly connection: RpcConnection<HostMethods>) {
    connection.onFrame((frame) => {
      this.frames.push(frame as HostFrame);
      for (const waiter of this.waiters.splice(0)) waiter();
    });
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

  /** The first frame (already received or still to come) that passes `test`. */
  frame<T extends HostFrame>(test: (frame: HostFrame) => frame is T, timeoutMs?: number): Promise<T>;
  frame(test: (frame: HostFrame) => boolean, timeoutMs?: number): Promise<HostFrame>;
  frame(test: (frame: HostFrame) => boolean, timeoutMs = 15_000): Promise<HostFrame> {
    return new Promise((resolve, reject) => {
      let seen = 0;
      const timer = setTimeout(() => reject(new Error(`no matching frame within ${timeoutMs} ms; got ${JSON.stringify(this.frames.slice(-5))}`)), timeoutMs);
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
  async screenMatching(session: string, pattern: RegExp, timeoutMs = 15_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const { text } = await this.request('session.read', { session, lines: 4000 });
      if (pattern.test(text)) return text;
      if (Date.now() > deadline) throw new Error(`screen never matched ${pattern}:\n${text}`);
      const count = this.frames.length;
      await this.frame((f) => this.frames.indexOf(f) >= count && f.type === 'output' && f.session === session, Math.max(1, deadline - Date.now())).catch(() => undefined);
    }
  }

  close() {
    this.connection.close();
  }
}

export const records = (frame: HostFrame) => (frame.type === 'status' ? frame.records.map((r) => `${r.id ?? 'root'}:${r.state}`) : []);
