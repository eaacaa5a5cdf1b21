import { join } from 'node:path';
import type { HostMethods } from '@paneflow/protocol/host-protocol';
import type { MethodName, MethodTable, ParamsOf, ResultOf } from '@paneflow/protocol/schema';
import { HOME_FILE_MAX_BYTES } from '@paneflow/protocol/limits';
import { HOST_PROTOCOL_VERSION } from '@paneflow/protocol/versions';
import { call, RpcConnection, UnreachableError, type RequestOptions } from '@paneflow/rpc/client';
import { checkSocketPath, type Endpoints } from './endpoints';
import { readRegularFileSync } from '@paneflow/proc';

/** checkSocketPath, where a socket that is not there means what a refused connection means: nothing listens. */
function checkBeforeConnecting(path: string): void {
  try {
    checkSocketPath(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new UnreachableError(path, error as Error);
    throw error;
  }
}

/** `RpcConnection.connect`, once the socket is known to be the user's own (checkSocketPath). */
export async function connectChecked<T extends MethodTable>(path: string, options?: RequestOptions): Promise<RpcConnection<T>> {
  checkBeforeConnecting(path);
  return RpcConnection.connect<T>(path, options);
}

/** One request on a connection of its own (`call`), once the socket is known to be the user's own. */
export async function callChecked<T extends MethodTable, M extends MethodName<T>>(path: string, method: M, params: ParamsOf<T, M>, options?: RequestOptions): Promise<ResultOf<T, M>> {
  checkBeforeConnecting(path);
  return call<T, M>(path, method, params, options);
}

/** The file where the running host keeps the secret its clients show in `host.hello` (mode 0600, new at each start). */
export function hostSecretPath(home: string): string {
  return join(home, 'host', 'secret');
}

/**
 * The running host's secret; null when there is no file, which only a host from before secrets
 * leaves (a host writes it before it listens): such a host asks for none, and an upgraded client
 * can still stop it. A host that asks for one refuses a hello without it.
 */
export function readHostSecret(home: string): string | null {
  const path = hostSecretPath(home);
  try {
    return readRegularFileSync(path, { maxBytes: HOME_FILE_MAX_BYTES }).toString('utf8').trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new Error(`cannot read the host's secret ${path}: ${(error as Error).message}`, { cause: error });
  }
}

/** A connection to the host that has said hello with the host's secret, and the host's answer. */
export async function connectHost(endpoints: Endpoints, client: string, options?: RequestOptions) {
  const connection = await connectChecked<HostMethods>(endpoints.hostSocket, options);
  try {
    const secret = readHostSecret(endpoints.home);
    const hello = await connection.request('host.hello', { client, protocol: HOST_PROTOCOL_VERSION, ...(secret === null ? {} : { secret }) }, options);
    return { connection, hello };
  } catch (error) {
    connection.destroy();
    throw error;
  }
}
