import type { Endpoints } from '@paneflow/instance';
import type { Catalog } from '@paneflow/procscan';
import { ErrorCode, HOST_REQUEST_TIMEOUT_MS, RpcError, type EventFrame, type HostMethods, type MethodName, type ParamsOf, type ResultOf } from '@paneflow/protocol';
import type { ConfigSource } from './config';
import { notFound } from './errors';
import type { EventHub } from './events';
import { systemClock, type Clock } from './clock';
import type { HostPort } from './hostlink';
import type { Model, PaneRecord, WorkspaceRecord } from './model';
import type { View } from './views';

export interface Capabilities {
  scripting: boolean;
  orchestration: boolean;
}

/** A frame before it is stamped. */
export type Unstamped<F> = F extends EventFrame ? Omit<F, 'at_ms'> : never;

/**
 * How long serve waits for the host's answer: HOST_REQUEST_TIMEOUT_MS, or a positive integer in
 * `PANEFLOW_SERVE_HOST_TIMEOUT_MS` (read at start, so a test that hangs the host need not wait 10 s).
 */
export function hostTimeoutMs(env: NodeJS.ProcessEnv): number {
  const given = Number(env.PANEFLOW_SERVE_HOST_TIMEOUT_MS);
  return Number.isSafeInteger(given) && given > 0 ? given : HOST_REQUEST_TIMEOUT_MS;
}

/**
 * The host as serve's parts call it. A host that is there but does not answer in time (hung,
 * stopped) is -32010 `host_timeout`, not an internal error: the client may retry, and the caller
 * must assume the request may still take effect (see `SessionMirror.abandon`).
 */
export class HostCalls {
  constructor(
    private readonly link: HostPort,
    readonly timeoutMs: number,
  ) {}

  async request<M extends MethodName<HostMethods>>(method: M, params: ParamsOf<HostMethods, M>, timeoutMs = this.timeoutMs): Promise<ResultOf<HostMethods, M>> {
    try {
      return await this.link.request(method, params, timeoutMs);
    } catch (error) {
      // The rpc client's own deadline (-32603 `timeout`); the host never sends that reason.
      if (error instanceof RpcError && error.reason === 'timeout') {
        throw new RpcError(ErrorCode.HostUnavailable, `the host did not answer ${method} within ${timeoutMs} ms`, { reason: 'host_timeout' });
      }
      throw error;
    }
  }

  /**
   * Whether the host answers now (`host.status` within the timeout). One that died is not, until
   * serve has started another; nor is one that hangs (stopped, wedged), which keeps its sockets
   * and its lock, so serve can neither reach it nor replace it.
   */
  async reachable(): Promise<boolean> {
    try {
      await this.request('host.status', {});
      return true;
    } catch (error) {
      if (error instanceof RpcError && error.code === ErrorCode.HostUnavailable) return false;
      throw error;
    }
  }

  /** Since when serve has followed no host, and why; null while it follows one. */
  get down(): { sinceMs: number; why: string } | null {
    return this.link.down;
  }

  start(): Promise<void> {
    return this.link.start();
  }

  close(): void {
    this.link.close();
  }
}

/**
 * What every part of serve shares: the instance, its settings, the model, one view per host
 * session, the host, the event hub and the clock. It sits at the bottom of serve's imports, so the
 * parts above it never import each other in a circle.
 */
export class ServeContext {
  readonly views = new Map<string, View>();
  readonly counters: Record<string, number> = { requests: 0, notifications: 0, notifications_rate_limited: 0, notifications_hidden: 0, status_changes: 0 };
  readonly host: HostCalls;

  constructor(
    readonly endpoints: Endpoints,
    readonly buildId: string,
    readonly capabilities: Capabilities,
    readonly config: ConfigSource,
    readonly catalog: Catalog,
    readonly model: Model,
    readonly events: EventHub,
    link: HostPort,
    readonly log: (message: string) => void,
    /** Time for serve's decisions (clock.ts): the system's, or a test's. */
    readonly clock: Clock = systemClock,
  ) {
    this.host = new HostCalls(link, hostTimeoutMs(process.env));
  }

  publish(frame: Unstamped<EventFrame>): void {
    this.events.publish({ at_ms: this.clock.now(), ...frame } as EventFrame);
  }

  pane(surfaceId: number): PaneRecord {
    const pane = this.model.pane(surfaceId);
    if (!pane) throw notFound(`surface ${surfaceId}`);
    return pane;
  }

  view(pane: PaneRecord): View {
    const view = this.views.get(pane.session);
    if (!view) throw notFound(`session of surface ${pane.surface_id}`);
    return view;
  }

  workspaceOf(pane: PaneRecord): WorkspaceRecord {
    return this.model.workspaces.find((w) => w.id === pane.workspace_id)!;
  }

  activeWorkspace(): WorkspaceRecord | undefined {
    return this.model.workspaces[this.model.active];
  }

  /** The workspace a request speaks for: the one it names (`workspace_id`), else the active one. */
  callerWorkspace(workspaceId: string | undefined): string | undefined {
    return workspaceId ?? this.activeWorkspace()?.id;
  }
}
