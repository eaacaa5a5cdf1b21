import { moveAside, readCheckedJson, removeTempFiles, writeTextAtomicAsync } from '@paneflow/instance';
import { TimeMs, TURNS_KEPT, TURNS_KEPT_PER_SESSION, TurnRecord, validate } from '@paneflow/protocol';
import { readdirSync, rmdirSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import Type from 'typebox';

const SESSION_DIR = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const RECORD_FILE = /^([1-9][0-9]*)\.json$/;
const LOOKED_FILE = 'looked.json';
const LookedFile = Type.Object({ looked_at_ms: TimeMs });

/** What one file is to become: this JSON, or gone. */
type Job = { json: unknown } | 'remove';

/** A file's writes in flight: the one after it (the newest asked for), and who waits for that one. */
interface Pending {
  next: Job | null;
  waiters: Array<() => void>;
}

/**
 * The ledger on disk: `<home>/serve/turns/<session>/<n>.json`, one record per file. Memory is the
 * truth; each change is written atomically (temp file, fsync, rename) on libuv's thread pool,
 * never on serve's event loop, in order per file and only the newest state once a write is in
 * flight, so a serve killed at any moment keeps every record as it was last written, whole. A file
 * that is not a record is moved aside and named once in the log, as every file of the home.
 * Records are kept per session (TURNS_KEPT_PER_SESSION) and in all (TURNS_KEPT), oldest ended ones
 * pruned first; `pruned` hears of each so its git ref goes too.
 */
export class TurnStore {
  private readonly bySession = new Map<string, TurnRecord[]>();
  /** The highest turn number each session has had: pruning its records does not number its turns again from 1. */
  private readonly lastTurn = new Map<string, number>();
  private count = 0;
  private looked: number | null = null;
  private readonly pending = new Map<string, Pending>();
  /** Each file's writes in flight, for `close`. */
  private readonly writing = new Set<Promise<void>>();
  private closed = false;

  constructor(
    private readonly dir: string,
    private readonly log: (message: string) => void,
    private readonly pruned: (records: TurnRecord[]) => void,
  ) {}

  /** Reads every record (at start, before serve answers anyone); a file of the wrong shape or name is set aside. */
  load(): void {
    let sessions: string[];
    try {
      sessions = readdirSync(this.dir);
    } catch {
      return;
    }
    this.looked = this.read<{ looked_at_ms: number }>(join(this.dir, LOOKED_FILE), (value) => validate(LookedFile, value)?.message ?? null)?.looked_at_ms ?? null;
    for (const session of sessions) {
      if (!SESSION_DIR.test(session)) continue;
      const dir = join(this.dir, session);
      let names: string[];
      try {
        removeTempFiles(dir);
        names = readdirSync(dir);
      } catch (error) {
        this.log(`turn ledger: ${dir} is not a directory of records (${(error as Error).message}); moved to ${moveAside(dir)}`);
        continue;
      }
      const records: TurnRecord[] = [];
      for (const name of names) {
        const match = RECORD_FILE.exec(name);
        if (!match) continue;
        const record = this.read<TurnRecord>(join(dir, name), (value) => {
          const problem = validate(TurnRecord, value)?.message;
          if (problem) return problem;
          const { session: its, turn, change } = value as TurnRecord;
          if (its !== session || turn !== Number(match[1])) return 'its session or number differ from its name';
          // Its ref reaches git (prune deletes it): it must be this turn's own.
          return change === null || change.ref === `refs/paneflow/turns/${session}/${turn}` ? null : `its ref is not its own: ${change.ref}`;
        });
        if (record) records.push(record);
      }
      if (records.length === 0) {
        // Pruned away while serve ran: the directory goes once it holds nothing.
        try {
          rmdirSync(dir);
        } catch {
          // something set aside is still in it
        }
        continue;
      }
      records.sort((a, b) => a.turn - b.turn);
      this.bySession.set(session, records);
      this.count += records.length;
    }
  }

  /** A file of the ledger, or undefined: missing, or not what it should be (then moved aside, and named once in the log). */
  private read<T>(path: string, problemOf: (value: unknown) => string | null): T | undefined {
    return readCheckedJson<T>(path, problemOf, { what: 'a file of the turn ledger', then: '', log: this.log }).value;
  }

  /** Every record of a session, oldest first. */
  of(session: string): readonly TurnRecord[] {
    return this.bySession.get(session) ?? [];
  }

  sessions(): string[] {
    return [...this.bySession.keys()];
  }

  /** The number the session's next turn gets. */
  nextTurn(session: string): number {
    return Math.max(this.lastTurn.get(session) ?? 0, this.of(session).at(-1)?.turn ?? 0) + 1;
  }

  /**
   * Keeps a record, new or changed (a new one may push the oldest ended ones out); resolves once
   * it, or a newer state of it, is on disk (or its write failed, which is logged).
   */
  save(record: TurnRecord): Promise<void> {
    const records = this.bySession.get(record.session) ?? [];
    const at = records.findIndex((r) => r.turn === record.turn);
    this.lastTurn.set(record.session, Math.max(this.lastTurn.get(record.session) ?? 0, record.turn));
    if (at !== -1) records[at] = record;
    else {
      records.push(record);
      records.sort((a, b) => a.turn - b.turn);
      this.bySession.set(record.session, records);
      this.count++;
    }
    const written = this.persist(this.path(record), { json: record });
    if (at === -1) this.keepWithin();
    return written;
  }

  /** Removes ended records (those `which` picks); returns them. */
  remove(which: (record: TurnRecord) => boolean): TurnRecord[] {
    const removed: TurnRecord[] = [];
    for (const [session, records] of this.bySession) {
      const kept = records.filter((r) => !(r.ended !== null && which(r)));
      if (kept.length === records.length) continue;
      for (const record of records) if (!kept.includes(record)) removed.push(record);
      if (kept.length) this.bySession.set(session, kept);
      else this.bySession.delete(session);
    }
    for (const record of removed) void this.persist(this.path(record), 'remove');
    this.count -= removed.length;
    return removed;
  }

  /** When the person last looked (the digest starts there), or null. */
  lookedAt(): number | null {
    return this.looked;
  }

  setLookedAt(atMs: number): void {
    this.looked = atMs;
    void this.persist(join(this.dir, LOOKED_FILE), { json: { looked_at_ms: atMs } });
  }

  private path(record: TurnRecord) {
    return join(this.dir, record.session, `${record.turn}.json`);
  }

  /** Serve stops: what is being written is finished, and nothing is written after it. */
  async close(): Promise<void> {
    this.closed = true;
    while (this.writing.size > 0) await Promise.all(this.writing);
  }

  /** Writes (or removes) a file after what is in flight for it; the jobs asked for meanwhile give way to the newest. */
  private persist(path: string, job: Job): Promise<void> {
    if (this.closed) return Promise.resolve();
    const pending = this.pending.get(path);
    if (pending) {
      pending.next = job;
      return new Promise((resolve) => pending.waiters.push(resolve));
    }
    const slot: Pending = { next: null, waiters: [] };
    this.pending.set(path, slot);
    return new Promise((resolve) => {
      const writing = (async () => {
        let current: Job | null = job;
        let waiters = [resolve];
        while (current !== null) {
          try {
            if (current === 'remove') await rm(path, { force: true });
            else {
              await mkdir(join(path, '..'), { recursive: true, mode: 0o700 });
              await writeTextAtomicAsync(path, JSON.stringify(current.json, null, 2) + '\n');
            }
          } catch (error) {
            this.log(`turn ledger: ${current === 'remove' ? 'removing' : 'writing'} ${path} failed: ${(error as Error).message}`);
          }
          for (const waiter of waiters) waiter();
          current = slot.next;
          waiters = slot.waiters;
          slot.next = null;
          slot.waiters = [];
        }
        this.pending.delete(path);
      })();
      this.writing.add(writing);
      void writing.finally(() => this.writing.delete(writing));
    });
  }

  /** The oldest ended records go past either bound; an open turn is never pruned. */
  private keepWithin() {
    const over = new Set<TurnRecord>();
    for (const records of this.bySession.values()) {
      const ended = records.filter((r) => r.ended !== null);
      for (const record of ended.slice(0, Math.max(0, records.length - TURNS_KEPT_PER_SESSION))) over.add(record);
    }
    const excess = this.count - over.size - TURNS_KEPT;
    if (excess > 0) {
      const oldest = [...this.bySession.values()]
        .flat()
        .filter((r) => r.ended !== null && !over.has(r))
        .sort((a, b) => a.started_at_ms - b.started_at_ms);
      for (const record of oldest.slice(0, excess)) over.add(record);
    }
    if (over.size === 0) return;
    this.pruned(this.remove((r) => over.has(r)));
  }
}

