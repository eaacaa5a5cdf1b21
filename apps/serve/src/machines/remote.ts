import { LINK_REFRESH_MS, statusChangedFrame, type EventFrame, type InboxItem, type MachineRow, type MachineSpec, type SessionRow, type StatusObject, type SurfaceEntry } from '@paneflow/protocol';
import { MachineLink } from './link';

/** What a remote machine needs of serve: to publish its frames to the subscribers that asked for machines, and a log. */
export interface RemoteOwner {
  publish(frame: EventFrame): void;
  log(message: string): void;
}

/** The frames of the far serve that change what this side shows. */
const FOLLOWED = ['status_changed', 'notification', 'surface_created', 'surface_updated', 'surface_closed', 'session_changed', 'workspace_changed', 'turn_started', 'turn_ended'] as const;
/** Far frames passed on as they come, with the machine's name: they change no list. */
const PASSED_ON = new Set(['turn_started', 'turn_ended']);

/** The far side's lists, as last read. */
interface Picture {
  agents: StatusObject[];
  inbox: InboxItem[];
  sessions: SessionRow[];
  surfaces: SurfaceEntry[];
}

/**
 * Another machine as this serve shows it: its link, and the picture of its agents, inbox,
 * sessions and panes as its serve last gave them, kept from its event stream. A frame that
 * changes the picture has it read again (gathered for `LINK_REFRESH_MS`); what changed is
 * published here with the machine's name. After a gap (the link dropped, its serve restarted),
 * the picture is read again and compared by `state_seq`: each change is published once, and an
 * agent that began to wait meanwhile is notified, so nothing is missed and nothing said twice.
 */
export class RemoteMachine {
  readonly link: MachineLink;
  private picture: Picture | null = null;
  private refreshTimer: NodeJS.Timeout | null = null;
  private refreshing: Promise<void> | null = null;
  private again = false;
  /** The next read follows a gap: who began to wait meanwhile is notified. */
  private afterGap = false;
  /** Live frames' `state_seq` per pane, so a read after them publishes nothing twice. */
  private readonly published = new Map<number, number>();
  private announced = '';
  /** The far serve's notifications, said once the read they came before is done. */
  private notices: EventFrame[] = [];

  constructor(
    readonly name: string,
    readonly spec: MachineSpec,
    private readonly owner: RemoteOwner,
    ssh?: string,
  ) {
    this.link = new MachineLink(
      name,
      spec,
      {
        connected: () => void this.follow(),
        state: () => this.announce(),
      },
      (message) => owner.log(message),
      ssh,
    );
  }

  start(): void {
    this.link.start();
  }

  stop(): void {
    if (this.refreshTimer) clearTimeout(this.refreshTimer);
    this.refreshTimer = null;
    this.link.stop();
  }

  get agents(): StatusObject[] {
    return this.picture?.agents ?? [];
  }
  get inbox(): InboxItem[] {
    return this.picture?.inbox ?? [];
  }
  get sessions(): SessionRow[] {
    return this.picture?.sessions ?? [];
  }
  get surfaces(): SurfaceEntry[] {
    return this.picture?.surfaces ?? [];
  }

  row(): MachineRow {
    const { link } = this;
    return {
      name: this.name,
      destination: this.spec.destination,
      state: link.state,
      reason: link.reason,
      since_ms: link.since,
      last_seen_ms: link.lastSeen,
      agents: this.agents.length,
      remote: link.remote ? { version: link.remote.version, protocol: link.remote.protocol } : null,
    };
  }

  /** The link is up: follow the far side's events, then read its lists (a gap, unless this is the first picture). */
  private async follow() {
    this.afterGap = this.picture !== null;
    try {
      // Ended with the link (stop, or a drop): never cancelled on its own.
      await this.link.stream(
        'events.subscribe',
        { types: [...FOLLOWED], heartbeat: false },
        {
          frame: (frame) => this.onFrame(frame),
          // The far serve went away under a live link (it restarted): a new link starts it again.
          end: () => this.link.restart('its serve ended the event stream'),
        },
      );
    } catch (error) {
      this.owner.log(`machine ${this.name}: cannot follow its events: ${(error as Error).message}`);
      this.link.restart('cannot follow its events');
      return;
    }
    this.refreshSoon(0);
  }

  /**
   * A far frame: the picture is read again (at once for a status or a notification, gathered
   * otherwise), and what changed is said after that read, so a face that reads a list on a frame
   * finds what the frame said. A notification waits for that read too.
   */
  private onFrame(frame: Record<string, unknown>) {
    if (PASSED_ON.has(frame.type as string)) return this.owner.publish({ ...(frame as EventFrame), machine: this.name } as EventFrame);
    const urgent = frame.type === 'notification' || frame.type === 'status_changed';
    if (frame.type === 'notification') this.notices.push({ ...(frame as EventFrame), machine: this.name } as EventFrame);
    this.refreshSoon(urgent ? 0 : LINK_REFRESH_MS);
  }

  private refreshSoon(delayMs: number) {
    if (this.refreshTimer && delayMs > 0) return;
    if (this.refreshTimer) clearTimeout(this.refreshTimer);
    this.refreshTimer = setTimeout(() => {
      this.refreshTimer = null;
      void this.refresh();
    }, delayMs);
  }

  /** One read of the far lists at a time; one asked for meanwhile runs after it. */
  private refresh(): Promise<void> {
    if (this.refreshing) {
      this.again = true;
      return this.refreshing;
    }
    const run = async () => {
      do {
        this.again = false;
        await this.read();
      } while (this.again);
    };
    this.refreshing = run().finally(() => (this.refreshing = null));
    return this.refreshing;
  }

  private async read() {
    const request = <T>(method: string, params: Record<string, unknown> = {}) => this.link.request(method, params) as Promise<T>;
    let next: Picture;
    try {
      const [fleet, inbox, sessions, surfaces] = await Promise.all([
        request<{ agents: StatusObject[] }>('fleet.list'),
        request<{ items: InboxItem[] }>('fleet.inbox'),
        request<{ sessions: SessionRow[] }>('session.list'),
        request<{ surfaces: SurfaceEntry[] }>('surface.list', { scope: 'all' }),
      ]);
      // Only this machine's own rows: a far serve that reaches machines of its own keeps them to itself.
      const own = <R extends { machine?: string | null }>(rows: R[]) => rows.filter((row) => !row.machine).map((row) => this.stamp(row));
      next = { agents: own(fleet.agents), inbox: own(inbox.items), sessions: own(sessions.sessions), surfaces: own(surfaces.surfaces) };
    } catch (error) {
      // The link's end says why; a read that failed on a live link is tried again on the next frame.
      this.owner.log(`machine ${this.name}: cannot read its lists: ${(error as Error).message}`);
      return;
    }
    const before = this.picture;
    this.picture = next;
    const notices = this.notices.splice(0);
    this.publishChanges(before, next, new Set(notices.map((notice) => (notice as { surface_id: number }).surface_id)));
    for (const notice of notices) this.owner.publish(notice);
    this.afterGap = false;
    this.announce();
  }

  /** Each agent's change once; after a gap, a wait that began meanwhile, unless the far serve's own notice says it (`noticed`). */
  private publishChanges(before: Picture | null, next: Picture, noticed: ReadonlySet<number>) {
    const now = new Set(next.agents.map((agent) => agent.surface_id));
    for (const agent of next.agents) {
      if (this.published.get(agent.surface_id) === agent.state_seq) continue;
      this.publishStatus(agent);
      const waiting = agent.state === 'waiting_for_input';
      if (this.afterGap && waiting && !noticed.has(agent.surface_id)) {
        const title = agent.surface_name ?? agent.tool ?? 'Agent';
        this.owner.publish({ type: 'notification', at_ms: Date.now(), surface_id: agent.surface_id, session: agent.session, machine: this.name, kind: 'needs_input', title, body: agent.message ?? null });
      }
    }
    for (const agent of before?.agents ?? []) {
      if (now.has(agent.surface_id)) continue;
      this.published.delete(agent.surface_id);
      this.owner.publish({ type: 'surface_closed', at_ms: Date.now(), surface_id: agent.surface_id, session: agent.session, machine: this.name, workspace: agent.workspace });
    }
  }

  private publishStatus(status: StatusObject) {
    if (this.published.get(status.surface_id) === status.state_seq) return;
    this.published.set(status.surface_id, status.state_seq);
    this.owner.publish({ ...statusChangedFrame(this.stamp(status)), at_ms: Date.now() });
  }

  private stamp<R extends object>(row: R): R & { machine: string } {
    return { ...row, machine: this.name };
  }

  /** The link's row, to the subscribers that follow machines, when its state, reason or agents changed. */
  private announce() {
    const row = this.row();
    const key = JSON.stringify([row.state, row.reason, row.agents, row.remote]);
    if (key === this.announced) return;
    this.announced = key;
    this.owner.publish({ type: 'machine_changed', at_ms: Date.now(), machine: row });
  }
}
