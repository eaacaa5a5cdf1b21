import { moveAside, readJson, writeJsonAtomic } from '@paneflow/instance';
import { ErrorCode, nullable, QUEUE_MAX_PER_PANE, QueueHold, QueueId, RpcError, TimeMs, Uuid, validate } from '@paneflow/protocol';
import Type, { type Static } from 'typebox';

const StoredPrompt = Type.Object({ id: QueueId, text: Type.String({ minLength: 1 }), queued_at_ms: TimeMs });
export type StoredPrompt = Static<typeof StoredPrompt>;

/** One session's queue: keyed by session, which outlives a host crash and a restart of its agent. */
const StoredQueue = Type.Object({ session: Uuid, held: nullable(QueueHold), items: Type.Array(StoredPrompt, { maxItems: QUEUE_MAX_PER_PANE }) });
export type StoredQueue = Static<typeof StoredQueue>;

/** `<home>/serve/queue.json`. */
const QueueFile = Type.Object({ version: Type.Literal(1), next_id: Type.Integer({ minimum: 1 }), queues: Type.Array(StoredQueue) });
type QueueFile = Static<typeof QueueFile>;

/** What is wrong with a file that should hold the queues: its schema, then ids used twice or not below the counter. */
function problemOf(value: unknown): string | null {
  const problem = validate(QueueFile, value);
  if (problem) return problem.message;
  const file = value as QueueFile;
  const ids = new Set<string>();
  const sessions = new Set<string>();
  for (const queue of file.queues) {
    if (sessions.has(queue.session)) return `session ${queue.session} has two queues`;
    sessions.add(queue.session);
    for (const { id } of queue.items) {
      if (ids.has(id)) return `${id} appears twice`;
      if (Number(id.slice(1)) >= file.next_id) return `${id} is not below next_id ${file.next_id}`;
      ids.add(id);
    }
  }
  return null;
}

/**
 * The queued prompts on disk: written atomically after every change, read (and checked) at
 * start. Ids come from a counter kept in the file, so none is ever used twice in a home.
 */
export class QueueStore {
  readonly queues = new Map<string, StoredQueue>();
  private nextId = 1;
  /** Why the last write failed; null while the file holds the queues. */
  private failure: string | null = null;

  constructor(
    private readonly path: string,
    private readonly log: (message: string) => void,
  ) {
    const file = this.load();
    if (!file) return;
    this.nextId = file.next_id;
    for (const queue of file.queues) this.queues.set(queue.session, queue);
  }

  /** The saved queues; a file that is not one is moved aside and named in the log, once. */
  private load(): QueueFile | undefined {
    let problem: string | null;
    try {
      const value = readJson(this.path);
      if (value === undefined) return undefined;
      problem = problemOf(value);
      if (!problem) return value as QueueFile;
    } catch (error) {
      problem = (error as Error).message;
    }
    let aside: string;
    try {
      aside = `moved to ${moveAside(this.path)}`;
    } catch (error) {
      aside = `not moved aside (${(error as Error).message})`;
    }
    this.log(`${this.path} is not a saved queue: ${problem}; ${aside}; starting with no queued prompts`);
    return undefined;
  }

  newId(): string {
    return `q${this.nextId++}`;
  }

  /** The session's queue, made empty when it has none. */
  queueOf(session: string): StoredQueue {
    let queue = this.queues.get(session);
    if (!queue) this.queues.set(session, (queue = { session, held: null, items: [] }));
    return queue;
  }

  /** The item with this id and its queue. */
  find(id: string): { queue: StoredQueue; index: number } | null {
    for (const queue of this.queues.values()) {
      const index = queue.items.findIndex((item) => item.id === id);
      if (index !== -1) return { queue, index };
    }
    return null;
  }

  /**
   * Makes a change and writes the file. `request`: a request's change, which is on disk before it
   * answers, or undone and refused with `not_saved`. Otherwise (a delivery, a hold) the change
   * holds in memory and is written with the next one; the log says so once.
   */
  change<T>(make: () => T, request: boolean): T {
    const before = request ? this.snapshot() : null;
    const result = make();
    for (const [session, queue] of this.queues) if (queue.items.length === 0 && !queue.held) this.queues.delete(session);
    try {
      writeJsonAtomic(this.path, this.snapshot());
      if (this.failure) this.log('queued prompts saved again');
      this.failure = null;
    } catch (error) {
      const why = (error as Error).message;
      if (before) {
        this.nextId = before.next_id;
        this.queues.clear();
        for (const queue of before.queues) this.queues.set(queue.session, queue);
        throw new RpcError(ErrorCode.InternalError, `${this.path} cannot be written (${why}): nothing was changed`, { reason: 'not_saved', applied: false });
      }
      if (!this.failure) this.log(`queued prompts not saved: ${why}; kept in memory and written with the next change`);
      this.failure = why;
    }
    return result;
  }

  /** A deep copy of what the file holds. */
  private snapshot(): QueueFile {
    return structuredClone({ version: 1, next_id: this.nextId, queues: [...this.queues.values()] });
  }
}
