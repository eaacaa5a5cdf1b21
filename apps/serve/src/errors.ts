import { ErrorCode, RpcError } from '@paneflow/protocol';

/** The errors serve answers with (REFERENCE.md §2.2), each with the `data.reason` a client acts on. */

export const disabled = (method: string, variable: string) =>
  new RpcError(ErrorCode.MethodNotFound, `${method} disabled: relaunch with ${variable}=1`, { reason: 'gate_closed', requires: variable });

export const invalid = (message: string, reason: string, field?: string) => new RpcError(ErrorCode.InvalidParams, message, field ? { reason, field } : { reason });

export const notFound = (what: string) => new RpcError(ErrorCode.NotFound, `${what} not found`, { reason: 'not_found' });

export const outsideScope = (message: string) => new RpcError(ErrorCode.Permission, message, { reason: 'outside_scope' });

/** The target's state refuses the request now; it may succeed later (an agent that is busy). */
export const refusedByState = (message: string, reason: string) => new RpcError(ErrorCode.StateConflict, message, { reason });
