/** Every error code of the wire (REFERENCE.md §1.2, §2.2). */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  Backpressure: -32000,
  Permission: -32001,
  /** `data.reason` says which: `host_unavailable` (no host) or `host_timeout` (a host that did not answer in time). */
  HostUnavailable: -32010,
  /** Another machine's serve cannot be asked (`data.reason`: `machine_offline`, `machine_timeout`); an addition (issue 32). */
  MachineUnavailable: -32011,
  /** The target's state refuses the request now (`agent_busy`); an addition to REFERENCE.md §2.2. */
  StateConflict: -32030,
  NotFound: -32020,
  OffsetEvicted: -32021,
  CheckpointTooLarge: -32022,
  SessionLive: -32023,
  ProtocolMismatch: -32024,
} as const;

export type ErrorCodeValue = (typeof ErrorCode)[keyof typeof ErrorCode];

/**
 * The refusals (-32030) of a close with `unless_busy` that a face turns into a question
 * (REFERENCE.md §1.4), asked again without `unless_busy` after a yes: `close_needs_confirmation`,
 * closing would stop an agent in its turn or a running program; `host_unreachable`, serve cannot
 * reach the host, so closing stops nothing and only takes the pane out of the workspace.
 */
export const asksToClose = (reason: string | null | undefined): boolean => reason === 'close_needs_confirmation' || reason === 'host_unreachable';

export interface ErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

/** An error that crosses the wire as itself: servers send it as is, clients rethrow it. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    /** `data.reason` (snake_case) when a client may act on it (REFERENCE.md §2.1). */
    readonly data?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'RpcError';
  }

  get reason(): string | undefined {
    return typeof this.data?.reason === 'string' ? this.data.reason : undefined;
  }

  toObject(): ErrorObject {
    return this.data === undefined ? { code: this.code, message: this.message } : { code: this.code, message: this.message, data: this.data };
  }
}
