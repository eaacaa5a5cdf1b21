// Other machines' agents as a face shows them (issue 32): each machine's link and its agents as
// this machine's serve last saw them, kept from `fleet.list` and the far frames a subscriber with
// `machines: true` gets. A far pane's id is its own machine's: one of this machine may have the
// same, so every far row is keyed by (machine, surface_id). Pure.
import type { EventFrame } from '@paneflow/protocol/events';
import type { MachineRow } from '@paneflow/protocol/machines';
import type { StatusObject } from '@paneflow/protocol/status';
import type { PaneStatus } from './presentation';
import { machineStateText } from './machines';
import { ageText } from './supervision';
import { displayText } from './text';

/** A pane's key among every machine's panes: `7` for this machine's, `devbox:7` for another's. */
export const paneKey = (machine: string | null | undefined, surfaceId: number): string => (machine ? `${machine}:${surfaceId}` : String(surfaceId));

/** The machine a frame is of, or null for this one (a `machine_changed` is about a link, not a pane: null too). */
export function frameMachine(frame: EventFrame): string | null {
  return 'machine' in frame && typeof frame.machine === 'string' ? frame.machine : null;
}

/** Another machine's agent: its status, naming the machine. */
export type FarStatus = PaneStatus & Pick<StatusObject, 'workspace' | 'state_seq'> & { machine: string };

/**
 * A machine's link in one line when it is not `connected`, over its agents: its name, `machine
 * ls`'s words for its state (`machineStateText`) and how old its rows are, from when its serve
 * last answered: `devbox — reconnecting 12s: ssh: connect to host devbox port 22: Connection
 * refused · as of 2m ago`. Cleaned; null while connected (its rows are live).
 */
export function machineLinkText(row: Pick<MachineRow, 'name' | 'state' | 'reason' | 'since_ms' | 'last_seen_ms'>, nowMs: number): string | null {
  if (row.state === 'connected') return null;
  const seen = row.last_seen_ms === null ? 'never reached' : `as of ${ageText(nowMs - row.last_seen_ms)} ago`;
  return displayText(`${row.name} — ${machineStateText(row, nowMs)} · ${seen}`);
}

/**
 * Where another machine's pane is, for a face that cannot show its terminal (a far machine's
 * terminal bytes are not carried): `on devbox — use \`paneflow attach --machine devbox\``.
 */
export const farTerminalText = (machine: string): string => displayText(`on ${machine} — use \`paneflow attach --machine ${machine}\``);

/**
 * Other machines, as a face keeps them: `links` (each machine's row, by name) and `agents` (by
 * `paneKey`). `load` takes a whole `fleet.list` (this machine's rows are the `Picture`'s and are
 * left out); `apply` one frame.
 */
export class FarMachines {
  readonly links = new Map<string, MachineRow>();
  readonly agents = new Map<string, FarStatus>();

  /** Everything, from `fleet.list`; a status a frame brought meanwhile is kept where it is newer. */
  load(agents: StatusObject[], machines: MachineRow[]): void {
    this.links.clear();
    for (const machine of machines) this.links.set(machine.name, machine);
    const read = new Map<string, FarStatus>();
    for (const agent of agents) if (agent.machine) read.set(paneKey(agent.machine, agent.surface_id), agent as FarStatus);
    for (const key of this.agents.keys()) if (!read.has(key)) this.agents.delete(key);
    for (const status of read.values()) this.read(status);
  }

  /** One far status, kept unless a newer one is held (an answer can overtake the frames). */
  read(status: FarStatus): boolean {
    const key = paneKey(status.machine, status.surface_id);
    const held = this.agents.get(key);
    if (held && held.revision > status.revision) return false;
    this.agents.set(key, status);
    return true;
  }

  /**
   * A frame of another machine, or a link's: `'agents'` when a far agent changed, `'links'` when a
   * link did (its agents are then read again whole: it may have come, gone or been removed),
   * `'none'` for anything else.
   */
  apply(frame: EventFrame): 'agents' | 'links' | 'none' {
    if (frame.type === 'machine_changed') {
      this.links.set(frame.machine.name, frame.machine);
      return 'links';
    }
    const machine = frameMachine(frame);
    if (machine === null) return 'none';
    if (frame.type === 'status_changed') return this.read({ ...frame.surface_status, machine } as FarStatus) ? 'agents' : 'none';
    if (frame.type === 'surface_closed') return this.agents.delete(paneKey(machine, frame.surface_id)) ? 'agents' : 'none';
    return 'none';
  }

  /** Each machine by name, with its agents in pane order: what a face draws under this machine's own. */
  grouped(): Array<{ link: MachineRow; agents: FarStatus[] }> {
    return [...this.links.values()]
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((link) => ({ link, agents: [...this.agents.values()].filter((a) => a.machine === link.name).sort((a, b) => a.surface_id - b.surface_id) }));
  }

  /** A far agent by machine and id. */
  get(machine: string, surfaceId: number): FarStatus | undefined {
    return this.agents.get(paneKey(machine, surfaceId));
  }
}
