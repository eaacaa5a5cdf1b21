import { readRegularFile } from '@paneflow/proc';
import { writeTextAtomicAsync } from '@paneflow/instance';
import { CONFIG_FILE_MAX_BYTES, ErrorCode, RpcError, sshOptionFault, type EventFrame, type InboxItem, type MachineRow, type MachineSpec, type SessionRow, type StatusObject, type SurfaceEntry } from '@paneflow/protocol';
import { mkdir, realpath } from 'node:fs/promises';
import { dirname } from 'node:path';
import { invalid } from '../errors';
import { RemoteMachine } from './remote';

/** What the machines need of serve. */
export interface MachinesOwner {
  publish(frame: EventFrame): void;
  log(message: string): void;
  /** config.json's path, and a re-read of it once changed. */
  configPath: string;
  reloadConfig(): Promise<void>;
}

/** `machine` as a list method takes it: absent, every machine; null, this one; a name, that one. */
export type MachineFilter = string | null | undefined;

const unknownMachine = (name: string) => new RpcError(ErrorCode.NotFound, `no machine named '${name}'; see \`paneflow machine ls\``, { reason: 'unknown_machine', machine: name });

/**
 * The machines of config.json's `machines` (issue 32), one `RemoteMachine` (and one ssh) each,
 * kept in step with the config as it changes. The lists of every machine are read from their
 * pictures, never asked of the far side while a person waits: a slow or dead machine slows no
 * `ps`. A request for a far pane is carried over its link (`forward`).
 */
export class Machines {
  private readonly remotes = new Map<string, RemoteMachine>();
  /** config.json's edits, one after another (two atomic writes of one file must not overlap). */
  private editing: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly owner: MachinesOwner,
    private readonly ssh?: string,
  ) {}

  /** Starts, stops and restarts links so they are the config's. */
  sync(specs: Record<string, MachineSpec>): void {
    for (const [name, remote] of this.remotes) {
      const spec = specs[name];
      if (spec && JSON.stringify(spec) === JSON.stringify(remote.spec)) continue;
      remote.stop();
      this.remotes.delete(name);
      if (!spec) this.owner.publish({ type: 'machine_changed', at_ms: Date.now(), machine: { ...remote.row(), state: 'offline', reason: 'removed', agents: 0 } });
    }
    for (const [name, spec] of Object.entries(specs)) {
      if (this.remotes.has(name)) continue;
      const remote = new RemoteMachine(name, spec, this.owner, this.ssh);
      this.remotes.set(name, remote);
      remote.start();
    }
  }

  close(): void {
    for (const remote of this.remotes.values()) remote.stop();
    this.remotes.clear();
  }

  get count(): number {
    return this.remotes.size;
  }

  rows(filter?: MachineFilter): MachineRow[] {
    return this.selected(filter).map((remote) => remote.row());
  }

  /** The remote machines a list method's `machine` names (none for `null`: this one only). */
  private selected(filter: MachineFilter): RemoteMachine[] {
    if (filter === null) return [];
    if (filter === undefined) return [...this.remotes.values()];
    return [this.get(filter)];
  }

  get(name: string): RemoteMachine {
    const remote = this.remotes.get(name);
    if (!remote) throw unknownMachine(name);
    return remote;
  }

  agents(filter: MachineFilter): StatusObject[] {
    return this.selected(filter).flatMap((remote) => remote.agents);
  }

  /** Items waiting for their person, each machine's; how long each waits is counted here, now. */
  inbox(filter: MachineFilter): InboxItem[] {
    const now = Date.now();
    return this.selected(filter).flatMap((remote) => remote.inbox.map((item) => ({ ...item, waiting_ms: Math.max(0, now - item.since_ms) })));
  }

  sessions(filter: MachineFilter): SessionRow[] {
    return this.selected(filter).flatMap((remote) => remote.sessions);
  }

  surfaces(filter: MachineFilter): SurfaceEntry[] {
    return this.selected(filter).flatMap((remote) => remote.surfaces);
  }

  /** A request carried to `name`'s serve, answered by it under its own gates. */
  forward(name: string, method: string, params: Record<string, unknown>, deadlineMs?: number): Promise<unknown> {
    return this.get(name).link.request(method, params, deadlineMs);
  }

  /** Adds a machine to config.json (the file written whole, atomically) and starts its link. */
  async add(name: string, spec: MachineSpec): Promise<MachineRow> {
    const fault = spec.ssh_options?.map(sshOptionFault).find(Boolean);
    if (fault) throw invalid(`ssh option ${fault}`, 'invalid_ssh_option', 'ssh_options');
    await this.editConfig((machines) => {
      if (name in machines) throw invalid(`a machine named '${name}' exists; remove it first`, 'machine_exists', 'name');
      machines[name] = spec;
    });
    return this.get(name).row();
  }

  async remove(name: string): Promise<void> {
    await this.editConfig((machines) => {
      if (!(name in machines)) throw unknownMachine(name);
      delete machines[name];
    });
  }

  /**
   * Changes config.json's `machines` and nothing else: a file that is not a JSON object is left
   * as it is and refused (a person's file is never overwritten with a guess). A link to the file
   * is followed, so the link stays.
   */
  private editConfig(change: (machines: Record<string, unknown>) => void): Promise<void> {
    const edit = this.editing.then(() => this.editConfigNow(change));
    this.editing = edit.catch(() => undefined);
    return edit;
  }

  private async editConfigNow(change: (machines: Record<string, unknown>) => void): Promise<void> {
    let path = this.owner.configPath;
    let config: Record<string, unknown> = {};
    try {
      path = await realpath(path);
      const text = (await readRegularFile(path, { maxBytes: CONFIG_FILE_MAX_BYTES, follow: true })).toString('utf8');
      const parsed: unknown = JSON.parse(text);
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not a JSON object');
      config = parsed as Record<string, unknown>;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
        throw new RpcError(ErrorCode.StateConflict, `config ${path} cannot be changed: ${(error as Error).message}; fix it first`, { reason: 'config_unreadable' });
      }
    }
    const machines = typeof config.machines === 'object' && config.machines !== null && !Array.isArray(config.machines) ? { ...(config.machines as Record<string, unknown>) } : {};
    change(machines);
    config.machines = machines;
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    await writeTextAtomicAsync(path, JSON.stringify(config, null, 2) + '\n');
    await this.owner.reloadConfig();
  }
}
