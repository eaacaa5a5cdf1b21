import { moveAside, readJson, removeTempFiles, writeJsonAtomic } from '@paneflow/instance';
import { TimeMs, TURNS_KEPT, TURNS_KEPT_PER_SESSION, TurnRecord, validate } from '@paneflow/protocol';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Type from 'typebox';

const SESSION_DIR = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const RECORD_FILE = /^([1-9][0-9]*)\.json$/;
const LookedFile = Type.Object({ looked_at_ms: TimeMs });

/**
 * The ledger on disk: `<home>/serve/turns/<session>/<n>.json`, one record per file, each written
 * atomically (temp file, fsync, rename) whenever it changes, so a serve killed at any moment keeps
 * every record as it last was. A file that is not a record is moved aside and named once in the
 * log, as every file of the home. Records are kept per session (TURNS_KEPT_PER_SESSION) and in all
 * (TURNS_KEPT), oldest ended ones pruned first; `pruned` hears of each so its git ref goes too.
 */
export class TurnStore {
  private readonly bySession = new Map<string, TurnRecord[]>();
  private count = 0;

  constructor(
    private readonly dir: string,
    private readonly log: (message: string) => void,
    private readonly pruned: (records: TurnRecord[]) => void,
  ) {}

  /** Reads every record; a file of the wrong shape or name is set aside. */
  load(): void {
    let sessions: string[];
    try {
      sessions = readdirSync(this.dir);
    } catch {
      return;
    }
    for (const session of sessions) {
      if (!SESSION_DIR.test(session)) continue;
      const dir = join(this.dir, session);
      removeTempFiles(dir);
      const records: TurnRecord[] = [];
      for (const name of readdirSync(dir)) {
        const match = RECORD_FILE.exec(name);
        if (!match) continue;
        const path = join(dir, name);
        const value = readJson(path);
        const problem = value === undefined ? 'not JSON' : validate(TurnRecord, value)?.message;
        const record = value as TurnRecord;
        if (problem || record.session !== session || record.turn !== Number(match[1])) {
          this.log(`turn record ${path} is not a record of that turn (${problem ?? 'its session or number differ'}); moved to ${moveAside(path)}`);
          continue;
        }
        records.push(record);
      }
      if (records.length === 0) continue;
      records.sort((a, b) => a.turn - b.turn);
      this.bySession.set(session, records);
      this.count += records.length;
    }
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
    return (this.of(session).at(-1)?.turn ?? 0) + 1;
  }

  /** Saves a record, new or changed; a new one may push the oldest ended ones out. */
  save(record: TurnRecord): void {
    const records = this.bySession.get(record.session) ?? [];
    const at = records.findIndex((r) => r.turn === record.turn);
    mkdirSync(join(this.dir, record.session), { recursive: true, mode: 0o700 });
    writeJsonAtomic(this.path(record), record);
    if (at !== -1) {
      records[at] = record;
      return;
    }
    records.push(record);
    records.sort((a, b) => a.turn - b.turn);
    this.bySession.set(record.session, records);
    this.count++;
    this.keepWithin();
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
    for (const record of removed) rmSync(this.path(record), { force: true });
    for (const session of new Set(removed.map((r) => r.session))) if (!this.bySession.has(session)) rmSync(join(this.dir, session), { recursive: true, force: true });
    this.count -= removed.length;
    return removed;
  }

  /** When the person last looked (the digest starts there), or null. */
  lookedAt(): number | null {
    const value = readJson(join(this.dir, 'looked.json'));
    return value !== undefined && validate(LookedFile, value) === null ? (value as { looked_at_ms: number }).looked_at_ms : null;
  }

  setLookedAt(atMs: number): void {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    writeJsonAtomic(join(this.dir, 'looked.json'), { looked_at_ms: atMs });
  }

  private path(record: TurnRecord) {
    return join(this.dir, record.session, `${record.turn}.json`);
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
    const removed = this.remove((r) => over.has(r));
    this.log(`pruned ${removed.length} turn record(s) past the ledger's bounds`);
    this.pruned(removed);
  }
}
