import { readJson, writeJsonAtomic } from '@paneflow/instance';
import { Manifest, validate } from '@paneflow/protocol';
import { mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Session } from './session';

/** Manifests are written at most this often per session while only records change. */
const MANIFEST_COALESCE_MS = 50;

/**
 * `<home>/host/sessions/<session>.json` (REFERENCE.md §1.1): each session's manifest, written
 * atomically and coalesced, and the manifests an earlier host left, adopted at start.
 */
export class ManifestStore {
  /** Sessions this host did not start (an earlier host's), known from their manifests. */
  readonly inherited = new Map<string, Manifest>();
  written = 0;
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly lastWrite = new Map<string, number>();

  constructor(
    private readonly dir: string,
    private readonly isCurrent: (session: Session) => boolean,
    private readonly log: (message: string) => void,
  ) {}

  /**
   * An earlier host's sessions: kept for their records and final screen, marked lost if they were
   * running — with why: the machine restarted (another boot id, or the runtime dir was emptied,
   * as a reboot does) or the host died (its socket still there). A file that is not a manifest is
   * moved aside and named in the log, never adopted.
   */
  adopt(machine: { bootId: string; hostSocketLeft: boolean }): void {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    for (const name of readdirSync(this.dir)) {
      const path = join(this.dir, name);
      if (name.endsWith('.tmp')) {
        rmSync(path, { force: true });
        continue;
      }
      if (!name.endsWith('.json')) continue;
      let manifest: Manifest | undefined;
      try {
        manifest = readJson<Manifest>(path);
        const problem = validate(Manifest, manifest);
        if (problem) throw new Error(`not a manifest: ${problem.message}`);
      } catch (error) {
        this.log(`unreadable manifest ${name}: ${(error as Error).message}; moved aside`);
        renameSync(path, `${path}.unreadable`);
        continue;
      }
      if (!manifest) continue;
      if (manifest.lifecycle === 'live' || manifest.lifecycle === 'starting') {
        const rebooted = (manifest.boot_id !== undefined && manifest.boot_id !== machine.bootId) || !machine.hostSocketLeft;
        manifest = { ...manifest, lifecycle: 'lost', lost: { reason: rebooted ? 'reboot' : 'host_crash', at_ms: Date.now() }, updated_at_ms: Date.now() };
        writeJsonAtomic(path, manifest);
      }
      this.inherited.set(manifest.session, manifest);
    }
  }

  /** Writes the session's manifest soon: at once if `urgent`, else at most once per 50 ms. */
  schedule(session: Session, urgent: boolean): void {
    if (this.timers.has(session.id) && !urgent) return;
    const since = Date.now() - (this.lastWrite.get(session.id) ?? 0);
    const delay = urgent ? 0 : Math.max(0, MANIFEST_COALESCE_MS - since);
    clearTimeout(this.timers.get(session.id));
    this.timers.set(
      session.id,
      setTimeout(() => {
        this.timers.delete(session.id);
        this.write(session);
      }, delay),
    );
  }

  private write(session: Session) {
    if (!this.isCurrent(session)) return;
    try {
      writeJsonAtomic(join(this.dir, `${session.id}.json`), session.manifest());
      this.lastWrite.set(session.id, Date.now());
      this.written++;
    } catch (error) {
      this.log(`manifest of ${session.id} not written: ${(error as Error).message}`);
    }
  }

  /** Writes every manifest still waiting (the host is stopping). */
  flush(sessions: Iterable<Session>): void {
    for (const session of sessions) {
      if (!this.timers.has(session.id)) continue;
      clearTimeout(this.timers.get(session.id));
      this.timers.delete(session.id);
      this.write(session);
    }
  }

  /** Forgets a session for good, its file included. */
  remove(id: string): void {
    clearTimeout(this.timers.get(id));
    this.timers.delete(id);
    this.inherited.delete(id);
    rmSync(join(this.dir, `${id}.json`), { force: true });
  }
}
