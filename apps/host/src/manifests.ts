import { moveAside, readJson, removeTempFiles, writeJsonAtomic } from '@paneflow/instance';
import { Manifest, validate } from '@paneflow/protocol';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Session } from './session';

/** Manifests are written at most this often per session while only records change. */
const MANIFEST_COALESCE_MS = 50;
/** While manifests cannot be written, they are tried again this often. */
const RETRY_MS = 2000;

/**
 * `<home>/host/sessions/<session>.json` (REFERENCE.md §1.1): each session's manifest, written
 * atomically and coalesced, and the manifests an earlier host left, adopted at start. A manifest
 * that cannot be written (a full or read-only disk) stays in memory and is tried again every
 * 2 s; the log says so once, and once more when every manifest is written again.
 */
export class ManifestStore {
  /** Sessions this host did not start (an earlier host's), known from their manifests. */
  readonly inherited = new Map<string, Manifest>();
  written = 0;
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly lastWrite = new Map<string, number>();
  /** Sessions whose latest manifest is not on disk. */
  private readonly unwritten = new Map<string, Session>();

  get unwrittenCount(): number {
    return this.unwritten.size;
  }
  private retry: NodeJS.Timeout | null = null;

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
    removeTempFiles(this.dir);
    for (const name of readdirSync(this.dir)) {
      if (!name.endsWith('.json')) continue;
      const path = join(this.dir, name);
      let manifest: Manifest;
      try {
        manifest = readJson<Manifest>(path)!;
        const problem = validate(Manifest, manifest);
        if (problem) throw new Error(`not a manifest: ${problem.message}`);
        if (`${manifest.session}.json` !== name) throw new Error(`it names session ${manifest.session}`);
      } catch (error) {
        let aside: string;
        try {
          aside = `moved to ${moveAside(path)}`;
        } catch (moveError) {
          aside = `not moved aside (${(moveError as Error).message})`;
        }
        this.log(`unreadable manifest ${name}: ${(error as Error).message}; ${aside}`);
        continue;
      }
      if (manifest.lifecycle === 'live' || manifest.lifecycle === 'starting') {
        const rebooted = (manifest.boot_id !== undefined && manifest.boot_id !== machine.bootId) || !machine.hostSocketLeft;
        manifest = { ...manifest, lifecycle: 'lost', lost: { reason: rebooted ? 'reboot' : 'host_crash', at_ms: Date.now() }, updated_at_ms: Date.now() };
        try {
          writeJsonAtomic(path, manifest);
        } catch (error) {
          // Known lost in memory all the same; the next host finds it live again and marks it so.
          this.log(`manifest ${name} not marked lost on disk: ${(error as Error).message}`);
        }
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
        this.write(session, urgent);
      }, delay),
    );
  }

  /**
   * An urgent write (a lifecycle change) goes out without the text kept at exit, which is made
   * (on the terminals' thread) for a write of its own unless the session is removed first.
   */
  private write(session: Session, urgent = false) {
    if (!this.isCurrent(session)) {
      this.unwritten.delete(session.id);
      return;
    }
    if (!urgent && session.finalOutputDue) {
      void session.makeFinalOutput().then(() => this.write(session));
      return;
    }
    try {
      writeJsonAtomic(join(this.dir, `${session.id}.json`), session.manifest());
    } catch (error) {
      if (!this.retry) {
        this.log(`manifests not written: ${(error as Error).message}; kept in memory and tried again every ${RETRY_MS / 1000} s`);
        this.retry = setInterval(() => this.writeUnwritten(), RETRY_MS).unref();
      }
      this.unwritten.set(session.id, session);
      return;
    }
    this.lastWrite.set(session.id, Date.now());
    this.written++;
    this.unwritten.delete(session.id);
    if (this.retry && this.unwritten.size === 0) this.recovered();
    if (session.finalOutputDue) this.schedule(session, false);
  }

  private writeUnwritten(): void {
    for (const session of [...this.unwritten.values()]) this.write(session);
    if (this.retry && this.unwritten.size === 0) this.recovered();
  }

  private recovered(): void {
    clearInterval(this.retry!);
    this.retry = null;
    this.log('manifests written again');
  }

  /** Writes every manifest still waiting, or not written yet (the host is stopping), with the texts kept at exit. */
  async flush(sessions: Iterable<Session>): Promise<void> {
    const all = [...sessions];
    await Promise.all(all.map((session) => session.makeFinalOutput()));
    for (const session of all) {
      if (!this.timers.has(session.id) && !this.unwritten.has(session.id)) continue;
      clearTimeout(this.timers.get(session.id));
      this.timers.delete(session.id);
      this.write(session);
    }
  }

  /** Forgets a session for good, its file included. */
  remove(id: string): void {
    clearTimeout(this.timers.get(id));
    this.timers.delete(id);
    this.unwritten.delete(id);
    this.inherited.delete(id);
    rmSync(join(this.dir, `${id}.json`), { force: true });
  }
}
