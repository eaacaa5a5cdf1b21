import { closeSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import type { HostMethods } from '@paneflow/protocol/host-protocol';
import type { PublicMethods } from '@paneflow/protocol/public-protocol';
import { isSameProcess } from '@paneflow/proc';
import { RpcError } from '@paneflow/protocol/errors';
import { RpcConnection, UnreachableError } from '@paneflow/rpc/client';
import { hostEnvironment } from './allocator';
import { callChecked, connectHost } from './connect';
import { prepareRuntimeDir, type Endpoints } from './endpoints';
import { rotateLogIfFull } from './files';
import { LockFile } from './lock';
import { runningOwner } from './owner';
import { programCommand } from './programs';

export const STARTUP_DEADLINE_MS = 10_000;

export interface DaemonInfo {
  pid: number;
  endpoint: string;
  home: string;
  protocol: number;
  adopted: boolean;
}

/** Nothing answers: nothing listens, or what listens (a hung daemon) says nothing in time. */
const noAnswer = (error: unknown) => error instanceof UnreachableError || (error instanceof RpcError && error.reason === 'timeout');

/** The host's `host.status` when one answers at these endpoints, else null. */
export async function hostStatus(endpoints: Endpoints, client: string) {
  let connection: RpcConnection<HostMethods> | null = null;
  try {
    ({ connection } = await connectHost(endpoints, client, { timeoutMs: 2000 }));
    return await connection.request('host.status', {});
  } catch (error) {
    if (noAnswer(error)) return null;
    throw error;
  } finally {
    connection?.close();
  }
}

/** serve's `serve.status` when it answers on the public socket, else null. */
export async function serveStatus(endpoints: Endpoints) {
  try {
    return await callChecked<PublicMethods, 'serve.status'>(endpoints.publicSocket, 'serve.status', {}, { timeoutMs: 2000 });
  } catch (error) {
    if (noAnswer(error)) return null;
    throw error;
  }
}

interface Daemon {
  /** `host` or `serve`: its directory under the home, its log, its lock. */
  name: 'host' | 'serve';
  endpoint: string;
  command: string[];
  /** Its environment: the caller's, with `PANEFLOW_HOME` set. */
  env: NodeJS.ProcessEnv;
  probe(): Promise<{ pid: number; home: string; protocol: number } | null>;
}

/** The daemon's status when one of this home answers; one of another home is an error. */
async function answering(endpoints: Endpoints, daemon: Daemon): Promise<DaemonInfo | null> {
  const running = await daemon.probe();
  if (!running) return null;
  if (running.home !== endpoints.home) throw new Error(`the ${daemon.name} on ${daemon.endpoint} serves ${running.home}, not ${endpoints.home}`);
  return { ...running, endpoint: daemon.endpoint, adopted: true };
}

/** Probes until the daemon answers, `givenUp()` says it never will, or the start-up deadline passes. */
async function answerWithin(endpoints: Endpoints, daemon: Daemon, givenUp: () => boolean): Promise<DaemonInfo | null> {
  const deadline = Date.now() + STARTUP_DEADLINE_MS;
  while (Date.now() < deadline && !givenUp()) {
    const status = await answering(endpoints, daemon);
    if (status) return status;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return null;
}

/**
 * Ensures one daemon of this home runs (REFERENCE.md §1.2, §1.3). One that answers is adopted
 * before anything is written, so a full or read-only home still reaches its running instance.
 * Otherwise, under `<name>/bootstrap.lock`: adopt one that answers now; wait for one that runs (it
 * holds `owner.lock`) but does not answer yet, never starting a second beside it; else spawn it
 * detached (own session, stdin and stdout to null, stderr appending to `<name>/<name>.log`, which
 * the daemon's own `log` rotates). Either waits up to 10 s for the answer.
 */
async function ensureDaemon(endpoints: Endpoints, daemon: Daemon): Promise<DaemonInfo> {
  const running = await answering(endpoints, daemon);
  if (running) return running;
  const dir = join(endpoints.home, daemon.name);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  prepareRuntimeDir(endpoints);
  const logPath = join(dir, `${daemon.name}.log`);
  const lock = new LockFile(join(dir, 'bootstrap.lock'));
  await lock.acquire(STARTUP_DEADLINE_MS);
  try {
    const started = await answering(endpoints, daemon);
    if (started) return started;
    const owner = runningOwner(endpoints.home, daemon.name);
    if (owner) {
      const alive = () => isSameProcess(owner.pid, owner.started_at);
      const status = await answerWithin(endpoints, daemon, () => !alive());
      if (status) return status;
      if (alive()) throw new Error(`paneflow-${daemon.name} (pid ${owner.pid}) runs but does not answer on ${daemon.endpoint}; see ${logPath}`);
      // It ended meanwhile: another is started.
    }
    const log = openSync(logPath, 'a', 0o600);
    // A daemon that fails at start never logs through its rotating `log`: its failures are capped here.
    rotateLogIfFull(logPath, log);
    const [program, ...args] = daemon.command;
    // Loaded only to start a daemon: a CLI verb that finds its instance running never needs it.
    const { spawn } = await import('node:child_process');
    const child = spawn(program, [...args, '--home', endpoints.home, daemon.name === 'host' ? 'serve' : 'run'], {
      detached: true,
      stdio: ['ignore', 'ignore', log],
      env: daemon.env,
    });
    closeSync(log);
    let exited: number | null = null;
    child.once('exit', (code) => (exited = code ?? 1));
    child.unref();
    const status = await answerWithin(endpoints, daemon, () => exited !== null);
    if (status) return { ...status, adopted: false };
    if (exited !== null) throw new Error(`paneflow-${daemon.name} exited with code ${exited} at start; see ${logPath}`);
    throw new Error(`paneflow-${daemon.name} did not answer within ${STARTUP_DEADLINE_MS / 1000} s; see ${logPath}`);
  } finally {
    lock.release();
  }
}

/**
 * Node flags of the host: young-generation semi-spaces of 4 MiB, not 16 (the default young
 * generation alone held 32 MiB of a busy host's RSS; 2 MiB saved more but cost a third more CPU
 * per byte parsed), and an old generation that grows by 30 % past what the last full collection
 * left, not up to several times it (32 busy panes: about 50 MiB less, for a few per cent more
 * CPU). Measured with `npm run bench:scale` (apps/host README).
 */
const HOST_NODE_FLAGS = ['--max-semi-space-size=4', '--heap-growing-percent=30'];

export function ensureHost(endpoints: Endpoints, command = programCommand('paneflow-host')): Promise<DaemonInfo> {
  const [program, ...args] = command;
  // Flags and allocator for node itself only: another program runs as given.
  const isNode = program === process.execPath;
  const env = { ...process.env, PANEFLOW_HOME: endpoints.home };
  return ensureDaemon(endpoints, {
    name: 'host',
    endpoint: endpoints.hostSocket,
    command: isNode ? [program, ...HOST_NODE_FLAGS, ...args] : command,
    env: isNode ? hostEnvironment(env) : env,
    probe: async () => {
      const status = await hostStatus(endpoints, 'bootstrap');
      return status && { pid: status.pid, home: status.home, protocol: status.protocol };
    },
  });
}

/** Serve, and through it the host (serve ensures the host when it starts). */
export function ensureServe(endpoints: Endpoints, command = programCommand('paneflow-serve')): Promise<DaemonInfo> {
  return ensureDaemon(endpoints, {
    name: 'serve',
    endpoint: endpoints.publicSocket,
    command,
    env: { ...process.env, PANEFLOW_HOME: endpoints.home },
    probe: async () => {
      const status = await serveStatus(endpoints);
      return status && { pid: status.pid, home: status.home, protocol: status.protocol };
    },
  });
}
