import type { Endpoints } from '@paneflow/instance';
import type { Catalog } from '@paneflow/procscan';
import type { EventFrame } from '@paneflow/protocol';
import type { ConfigSource } from './config';
import { notFound } from './errors';
import type { EventHub } from './events';
import type { HostLink } from './hostlink';
import type { Model, PaneRecord, WorkspaceRecord } from './model';
import type { View } from './views';

export interface Capabilities {
  scripting: boolean;
  orchestration: boolean;
}

/** A frame before it is stamped. */
export type Unstamped<F> = F extends EventFrame ? Omit<F, 'at_ms'> : never;

/**
 * What every part of serve shares: the instance, its settings, the model, one view per host
 * session, the host link and the event hub. It sits at the bottom of serve's imports, so the
 * parts above it never import each other in a circle.
 */
export class ServeContext {
  readonly views = new Map<string, View>();
  readonly counters: Record<string, number> = { requests: 0, notifications: 0, notifications_rate_limited: 0, status_changes: 0 };

  constructor(
    readonly endpoints: Endpoints,
    readonly buildId: string,
    readonly capabilities: Capabilities,
    readonly config: ConfigSource,
    readonly catalog: Catalog,
    readonly model: Model,
    readonly events: EventHub,
    readonly host: HostLink,
    readonly log: (message: string) => void,
  ) {}

  publish(frame: Unstamped<EventFrame>): void {
    this.events.publish({ at_ms: Date.now(), ...frame } as EventFrame);
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
