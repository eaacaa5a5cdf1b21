import { DEFAULT_CAPACITY, MAX_CAPACITY, MIN_CAPACITY } from './limits';
import type { Change, Parsed, State, StatusRecord } from './types';

export interface StoreOptions {
  /** 64..256 records, clamped; default 256 (OSC7501.md §9). */
  capacity?: number;
  /** Also drop `idle` records on prompt start and exit (§10); off by default, as in Paneflow. */
  dropIdleOnLifetimeEvents?: boolean;
}

type Stored = Omit<StatusRecord, 'effectiveApp'>;

/**
 * The records of one terminal (OSC7501.md §8–§10): one per id, replaced whole by each report,
 * least recently updated evicted first, subtrees cleared together, apps inherited live.
 */
export class Store {
  readonly capacity: number;
  private readonly dropIdle: boolean;
  /** Keyed by id (`null` = root), in order of last update: the first entry is evicted first. */
  private readonly byId = new Map<string | null, Stored>();

  constructor(options: StoreOptions = {}) {
    const requested = Math.trunc(options.capacity ?? DEFAULT_CAPACITY);
    this.capacity = Math.min(MAX_CAPACITY, Math.max(MIN_CAPACITY, Number.isNaN(requested) ? DEFAULT_CAPACITY : requested));
    this.dropIdle = options.dropIdleOnLifetimeEvents ?? false;
  }

  /** Applies a parse result; queries and discarded reports change nothing. */
  apply(parsed: Parsed): Change[] {
    if (parsed.type === 'clear') {
      if (parsed.id === null) return this.removeWhere(() => true);
      const prefix = parsed.id + '/';
      return this.removeWhere((id) => id === parsed.id || (id !== null && id.startsWith(prefix)));
    }
    if (parsed.type !== 'report') return [];
    const changes: Change[] = [];
    const { id } = parsed;
    if (this.byId.has(id)) {
      this.byId.delete(id);
    } else if (this.byId.size >= this.capacity) {
      const oldest = this.byId.keys().next().value as string | null;
      this.byId.delete(oldest);
      changes.push({ type: 'evicted', id: oldest });
    }
    this.byId.set(id, {
      id,
      state: parsed.state,
      kind: parsed.kind,
      progress: parsed.progress,
      app: parsed.app,
      title: parsed.title,
      msg: parsed.msg,
    });
    changes.push({ type: 'set', id });
    return changes;
  }

  /** `OSC 133 ; A`: a turn cannot still be running at a fresh prompt. */
  promptStart(): Change[] {
    return this.removeStates(this.dropIdle ? ['working', 'blocked', 'idle'] : ['working', 'blocked']);
  }

  /** The program exited (after its last output was processed). */
  processExit(): Change[] {
    return this.promptStart();
  }

  /** The user typed in the pane from a real keyboard: they have seen the results. */
  userInput(): Change[] {
    return this.removeStates(['done', 'error']);
  }

  /** Full reset (RIS). */
  reset(): Change[] {
    return this.removeWhere(() => true);
  }

  get(id: string | null): StatusRecord | null {
    const stored = this.byId.get(id);
    return stored ? this.withEffectiveApp(stored) : null;
  }

  /** The root record if present, else the most recently updated one (§8.6). */
  current(): StatusRecord | null {
    if (this.byId.has(null)) return this.get(null);
    let latest: Stored | undefined;
    for (const stored of this.byId.values()) latest = stored;
    return latest ? this.withEffectiveApp(latest) : null;
  }

  /** Root first, then ids in ascending byte order. */
  records(): StatusRecord[] {
    return [...this.byId.keys()].sort(compareIds).map((id) => this.withEffectiveApp(this.byId.get(id)!));
  }

  get size(): number {
    return this.byId.size;
  }

  private withEffectiveApp(stored: Stored): StatusRecord {
    return { ...stored, effectiveApp: this.effectiveApp(stored) };
  }

  private effectiveApp(stored: Stored): string | null {
    if (stored.app !== null) return stored.app;
    let id = stored.id;
    while (id !== null) {
      const slash = id.lastIndexOf('/');
      id = slash === -1 ? null : id.slice(0, slash);
      const ancestor = this.byId.get(id);
      if (ancestor && ancestor.app !== null) return ancestor.app;
    }
    return null;
  }

  private removeStates(states: State[]): Change[] {
    return this.removeWhere((_id, stored) => states.includes(stored.state));
  }

  private removeWhere(test: (id: string | null, stored: Stored) => boolean): Change[] {
    const removed = [...this.byId].filter(([id, stored]) => test(id, stored)).map(([id]) => id);
    for (const id of removed) this.byId.delete(id);
    return removed.sort(compareIds).map((id) => ({ type: 'removed', id }));
  }
}

/** Ids are ASCII, so UTF-16 order is byte order. */
function compareIds(a: string | null, b: string | null): number {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  return a < b ? -1 : 1;
}
