// The sidebar's other machines (issue 32): every agent this machine's serve knows of that is not
// in the attached instance's picture, grouped by machine, and the fleet-wide inbox `prefix a`
// walks. Its source is always THIS machine's serve, with `machines: true`: attached here, the
// other machines are the far ones; attached to devbox (`--machine devbox`), they are this machine
// (`machine: null` in serve's words) and every machine but devbox. Far pane ids are their own
// machine's, so rows are keyed by `paneKey`, never by id alone.
import type { InstanceClient } from '@paneflow/client';
import type { EventFrame, EventType } from '@paneflow/protocol/events';
import type { MachineRow } from '@paneflow/protocol/machines';
import type { InboxItem, NoticeKind, StatusObject } from '@paneflow/protocol/status';
import { FarMachines, frameMachine, machineLinkText, machineStateText, type PaneStatus } from '@paneflow/view';

/** What the fleet follows: far agents' states and notices, and the links. */
const FLEET_TYPES: EventType[] = ['status_changed', 'surface_closed', 'notification', 'machine_changed'];

/** How this machine is named where another one is attached (its rows say `machine: null`). */
export const HOME_NAME = 'this machine';

/** A pane among every machine's: `machine` null for this machine's. */
export interface FleetPane {
  machine: string | null;
  surfaceId: number;
}

/** One machine's agents as the sidebar draws them, under its heading and its link's state when it is not connected. */
export interface FleetGroup {
  machine: string | null;
  heading: string;
  link: string | null;
  agents: PaneStatus[];
}

/** A notice of an agent on another machine (or on this one, while another is attached). */
export interface FleetNotice {
  kind: NoticeKind;
  surface_id: number;
  title: string;
  body: string | null;
}

export interface FleetFace {
  /** The groups changed: the sidebar is drawn again. */
  changed(): void;
  /** An agent out of the attached instance raised a notice. */
  noticed(notice: FleetNotice, machine: string | null): void;
}

const RETRY_MS = 500;

export class AttachFleet {
  private readonly far = new FarMachines();
  /** This machine's agents, while another machine is attached. */
  private readonly home = new Map<number, PaneStatus>();
  private subscription: number | null = null;
  private closed = false;
  private retry: NodeJS.Timeout | null = null;
  private reading: Promise<void> | null = null;
  private readAgain = false;

  /** `local`: a client of this machine's serve; `attached`: the machine attach works in (null: this one). */
  constructor(
    private readonly local: InstanceClient,
    readonly attached: string | null,
    private readonly face: FleetFace,
  ) {}

  /** Follows this machine's serve (no heartbeats: idle attach wakes for nothing), then reads the fleet whole. */
  async start(): Promise<void> {
    this.subscription = await this.local.subscribe(
      // Attached here, this machine's frames come on the attach's own stream: only the others' here.
      { heartbeat: false, machines: this.attached === null ? 'only' : true, types: FLEET_TYPES },
      (_id, frame) => this.frame(frame as EventFrame),
      () => this.lost(),
    );
    await this.load();
  }

  close(): void {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    if (this.subscription !== null) this.local.unsubscribe(this.subscription);
    this.subscription = null;
  }

  /** Every agent and link, read whole (`fleet.list`); calls meanwhile make it run once more. */
  load(): Promise<void> {
    if (this.reading) {
      this.readAgain = true;
      return this.reading;
    }
    this.reading = (async () => {
      do {
        this.readAgain = false;
        const { agents, machines } = (await this.local.request('fleet.list', {})) as { agents: StatusObject[]; machines?: MachineRow[] };
        this.far.load(agents, machines ?? []);
        this.home.clear();
        if (this.attached !== null) for (const agent of agents) if (!agent.machine) this.home.set(agent.surface_id, agent);
        this.face.changed();
      } while (this.readAgain && !this.closed);
    })().finally(() => (this.reading = null));
    return this.reading;
  }

  /** This machine's serve went away: followed again once it is back (the attached picture has its own retry). */
  private lost(): void {
    this.subscription = null;
    if (this.closed) return;
    this.retry = setTimeout(() => {
      this.retry = null;
      if (!this.closed) this.start().catch(() => this.lost());
    }, RETRY_MS);
  }

  private frame(frame: EventFrame): void {
    if (frame.type === 'dropped') return void this.load().catch(() => undefined);
    if (frame.type === 'machine_changed') {
      // A link that changed may have brought agents, lost them, or gone: read whole.
      this.far.apply(frame);
      this.face.changed();
      return void this.load().catch(() => undefined);
    }
    const machine = frameMachine(frame);
    // The attached instance's own panes are its picture's, from its own subscription.
    if (machine === this.attached) return;
    if (frame.type === 'notification') return this.face.noticed(frame, machine);
    if (machine !== null) {
      if (this.far.apply(frame) !== 'none') this.face.changed();
      return;
    }
    if (frame.type === 'status_changed') {
      const held = this.home.get(frame.surface_id);
      if (held && held.revision > frame.surface_status.revision) return;
      this.home.set(frame.surface_id, frame.surface_status);
      this.face.changed();
    } else if (frame.type === 'surface_closed' && this.home.delete(frame.surface_id)) this.face.changed();
  }

  /** An agent out of the attached instance, by machine (null: this machine) and id. */
  status(machine: string | null, surfaceId: number): PaneStatus | undefined {
    return machine === null ? this.home.get(surfaceId) : this.far.get(machine, surfaceId);
  }

  /** Why another machine cannot be gone to now, in a line (`devbox is offline 2m: …`): null while its link is up or unknown (then trying tells). */
  unreachable(machine: string, nowMs: number): string | null {
    const link = this.far.links.get(machine);
    return link && link.state !== 'connected' ? `${machine} is ${machineStateText(link, nowMs)}` : null;
  }

  /** The groups under the attached instance's agents: this machine first when another is attached, then each other machine by name. */
  groups(nowMs: number): FleetGroup[] {
    const groups: FleetGroup[] = [];
    if (this.attached !== null) groups.push({ machine: null, heading: HOME_NAME, link: null, agents: [...this.home.values()].sort((a, b) => a.surface_id - b.surface_id) });
    for (const { link, agents } of this.far.grouped()) {
      if (link.name !== this.attached) groups.push({ machine: link.name, heading: link.name, link: machineLinkText(link, nowMs), agents });
    }
    return groups;
  }

  /**
   * The waiting agent after `current` in serve's fleet-wide inbox (oldest wait first, whichever
   * machine), or its first: null when none waits.
   */
  async nextWaiting(current: FleetPane | null): Promise<FleetPane | null> {
    const { items } = (await this.local.request('fleet.inbox', {})) as { items: InboxItem[] };
    const panes = items.map((item) => ({ machine: item.machine ?? null, surfaceId: item.surface_id }));
    const at = current ? panes.findIndex((p) => p.machine === current.machine && p.surfaceId === current.surfaceId) : -1;
    return panes[at + 1] ?? panes[0] ?? null;
  }
}
