import { readJson, writeJsonAtomic } from '@paneflow/instance';
import { HOOK_FIELD_LIMITS } from '@paneflow/protocol';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/** A subagent id that can name a file (REFERENCE.md §7.2): not empty, ≤ 160 characters, no `/`, `..`, space or NUL. */
export function subagentIdProblem(id: string | undefined): string | null {
  if (!id) return 'is missing or empty';
  if (id.length > HOOK_FIELD_LIMITS.agent_id) return `is over ${HOOK_FIELD_LIMITS.agent_id} characters`;
  if (id.includes('/') || id.includes('..') || /[\s\0]/.test(id)) return "holds '/', '..', a space or NUL";
  return null;
}

interface Marker {
  agent_id: string;
  pid: number | null;
  started_at_ms: number;
}

/**
 * The subagents an agent runs now, one marker file each under
 * `<home>/host/session-data/<session>/<generation>/<agent_id>.json` (REFERENCE.md §7.2), written
 * on `SubagentStart`, removed on `SubagentStop` and when the agent exits. The files are the
 * truth, so a restarted serve reads them back; memory only caches them.
 */
export class Subagents {
  private readonly cache = new Map<string, { generation: number; markers: Marker[] }>();

  constructor(
    private readonly home: string,
    private readonly log: (message: string) => void,
  ) {}

  private dir(session: string, generation: number) {
    return join(this.home, 'host', 'session-data', session, String(generation));
  }

  /** The ids running in this generation, oldest first. */
  running(session: string, generation: number): string[] {
    return this.markers(session, generation).map((m) => m.agent_id);
  }

  private markers(session: string, generation: number): Marker[] {
    const cached = this.cache.get(session);
    if (cached?.generation === generation) return cached.markers;
    const markers: Marker[] = [];
    const dir = this.dir(session, generation);
    let names: string[] = [];
    try {
      names = readdirSync(dir).filter((n) => n.endsWith('.json') && !n.startsWith('.'));
    } catch {
      // none yet
    }
    for (const name of names) {
      try {
        const marker = readJson<Marker>(join(dir, name));
        if (marker && typeof marker.agent_id === 'string' && `${marker.agent_id}.json` === name) markers.push(marker);
      } catch (error) {
        this.log(`subagent marker ${join(dir, name)} unreadable: ${(error as Error).message}`);
      }
    }
    markers.sort((a, b) => a.started_at_ms - b.started_at_ms);
    this.cache.set(session, { generation, markers });
    return markers;
  }

  /** Returns whether the running set changed. */
  start(session: string, generation: number, id: string, pid: number | null, atMs: number): boolean {
    const markers = this.markers(session, generation);
    if (markers.some((m) => m.agent_id === id)) return false;
    const marker: Marker = { agent_id: id, pid, started_at_ms: atMs };
    const dir = this.dir(session, generation);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeJsonAtomic(join(dir, `${id}.json`), marker);
    markers.push(marker);
    return true;
  }

  stop(session: string, generation: number, id: string): boolean {
    const markers = this.markers(session, generation);
    const index = markers.findIndex((m) => m.agent_id === id);
    rmSync(join(this.dir(session, generation), `${id}.json`), { force: true });
    if (index < 0) return false;
    markers.splice(index, 1);
    return true;
  }

  /** The agent exited: none of its subagents runs any more. */
  clear(session: string, generation: number): boolean {
    const had = this.markers(session, generation).length > 0;
    rmSync(this.dir(session, generation), { recursive: true, force: true });
    this.cache.set(session, { generation, markers: [] });
    return had;
  }

  forget(session: string): void {
    this.cache.delete(session);
  }
}
