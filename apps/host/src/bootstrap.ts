import { HOST_PROTOCOL_VERSION, LockFile, prepareRuntimeDir, RpcConnection, UnreachableError, type Endpoints, type HostMethods } from '@paneflow/rpc';
import { spawn } from 'node:child_process';
import { mkdirSync, openSync, closeSync } from 'node:fs';
import { join } from 'node:path';

export const STARTUP_DEADLINE_MS = 10_000;

export interface HostInfo {
  pid: number;
  endpoint: string;
  home: string;
  protocol: number;
  adopted: boolean;
}

/** Says hello to the host of these endpoints; null when none answers there. */
export async function helloHost(endpoints: Endpoints, client: string) {
  let connection: RpcConnection<HostMethods>;
  try {
    connection = await RpcConnection.connect<HostMethods>(endpoints.hostSocket, { timeoutMs: 2000 });
  } catch (error) {
    if (error instanceof UnreachableError) return null;
    throw error;
  }
  try {
    await connection.request('host.hello', { client, protocol: HOST_PROTOCOL_VERSION });
    return await connection.request('host.status', {});
  } finally {
    connection.close();
  }
}

/**
 * Ensures a host runs for this home (REFERENCE.md §1.2): under `bootstrap.lock`, adopt a host that
 * answers, else spawn one detached (new session, output to `host.log`) and wait for its hello.
 */
export async function ensureHost(endpoints: Endpoints, hostProgram: string[]): Promise<HostInfo> {
  const hostDir = join(endpoints.home, 'host');
  mkdirSync(hostDir, { recursive: true, mode: 0o700 });
  prepareRuntimeDir(endpoints);
  const lock = new LockFile(join(hostDir, 'bootstrap.lock'));
  await lock.acquire(STARTUP_DEADLINE_MS);
  try {
    const running = await helloHost(endpoints, 'paneflow-host start');
    if (running) {
      if (running.home !== endpoints.home) throw new Error(`the host on ${endpoints.hostSocket} serves ${running.home}, not ${endpoints.home}`);
      return { pid: running.pid, endpoint: endpoints.hostSocket, home: running.home, protocol: running.protocol, adopted: true };
    }
    const log = openSync(join(hostDir, 'host.log'), 'a', 0o600);
    const child = spawn(hostProgram[0], [...hostProgram.slice(1), '--home', endpoints.home, 'serve'], {
      detached: true,
      stdio: ['ignore', 'ignore', log],
      env: { ...process.env, PANEFLOW_HOME: endpoints.home },
    });
    closeSync(log);
    let exited: number | null = null;
    child.once('exit', (code) => (exited = code ?? 1));
    child.unref();
    const deadline = Date.now() + STARTUP_DEADLINE_MS;
    while (Date.now() < deadline) {
      if (exited !== null) throw new Error(`the host exited with code ${exited} at start; see ${join(hostDir, 'host.log')}`);
      const status = await helloHost(endpoints, 'paneflow-host start');
      if (status) return { pid: status.pid, endpoint: endpoints.hostSocket, home: status.home, protocol: status.protocol, adopted: false };
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`the host did not answer within ${STARTUP_DEADLINE_MS / 1000} s; see ${join(hostDir, 'host.log')}`);
  } finally {
    lock.release();
  }
}
