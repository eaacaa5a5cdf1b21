import { type DaemonInfo, ensureServe, hostStatus, serveStatus } from '@paneflow/instance/bootstrap';
import { callChecked, connectChecked } from '@paneflow/instance/connect';
import { type Endpoints, resolveEndpoints } from '@paneflow/instance/endpoints';
import { ErrorCode, RpcError } from '@paneflow/protocol/errors';
import type { PublicMethods } from '@paneflow/protocol/public-protocol';
import type { MethodName, ParamsOf, ResultOf } from '@paneflow/protocol/schema';
import { type RpcConnection, UnreachableError } from '@paneflow/rpc/client';
import { requestDeadlineMs } from '@paneflow/protocol/deadlines';
import { CliError } from './errors';

let endpoints: Endpoints | null = null;
export function instanceEndpoints(): Endpoints {
  endpoints ??= resolveEndpoints(process.env);
  return endpoints;
}

export function unreachable(): CliError {
  const socket = instanceEndpoints().publicSocket;
  return new CliError(`no Paneflow instance answers on ${socket}; start one with \`paneflow serve start\` (or point PANEFLOW_SOCKET_PATH at one)`, 1);
}

/** An error from serve as the CLI tells it: the message, and the hint a gate gives. */
export function explain(error: unknown): CliError {
  if (error instanceof CliError) return error;
  if (error instanceof UnreachableError) return unreachable();
  if (error instanceof RpcError) {
    const requires = error.data?.requires;
    if (error.code === ErrorCode.MethodNotFound && typeof requires === 'string') return new CliError(`${error.message}`, 1);
    if (error.code === ErrorCode.Permission) return new CliError(`${error.message}`, 1);
    if (error.reason === 'agent_busy') return new CliError(`${error.message} (use --force to send anyway)`, 1);
    return new CliError(error.message, 1, error.reason);
  }
  return new CliError(error instanceof Error ? error.message : String(error), 1);
}

/**
 * One request to serve, on a connection of its own, to a socket that is the user's own
 * (checkSocketPath), waiting as long as serve may take to answer it (`requestDeadlineMs`).
 */
export async function request<M extends MethodName<PublicMethods>>(
  method: M,
  params: ParamsOf<PublicMethods, M>,
  timeoutMs = requestDeadlineMs(method, params),
): Promise<ResultOf<PublicMethods, M>> {
  try {
    return await callChecked<PublicMethods, M>(instanceEndpoints().publicSocket, method, params, { timeoutMs });
  } catch (error) {
    throw explain(error);
  }
}

/** A streaming subscription; frames go to `onFrame`. */
export async function subscribe(params: ParamsOf<PublicMethods, 'events.subscribe'>, onFrame: (frame: Record<string, unknown>) => void) {
  let connection: RpcConnection<PublicMethods>;
  try {
    connection = await connectChecked<PublicMethods>(instanceEndpoints().publicSocket);
  } catch (error) {
    throw explain(error);
  }
  connection.onFrame(onFrame);
  try {
    await connection.request('events.subscribe', params);
  } catch (error) {
    connection.destroy();
    throw explain(error);
  }
  return connection;
}

/** Host and serve, started detached if none runs (`new`, `up`, `flow run`, `start`). */
export async function ensureInstance(): Promise<DaemonInfo> {
  try {
    return await ensureServe(instanceEndpoints());
  } catch (error) {
    throw new CliError(`cannot start Paneflow: ${(error as Error).message}`, 1);
  }
}

export { hostStatus, serveStatus };
