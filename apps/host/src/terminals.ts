import { RpcError, type Manifest, type WireRecord } from '@paneflow/protocol';
import { Worker } from 'node:worker_threads';
import type { CanonicalTerminal, TerminalEvents, TerminalModes } from './terminal';

/**
 * Every session's canonical terminal runs on one thread of its own (terminal-thread.ts), so that
 * parsing a flood never waits for the PTY and reading the PTY never waits for parsing: a Linux
 * PTY hands over at most 4 KiB a read, and a host that parsed between reads sat idle for a quarter
 * of a `cat`. The host's thread keeps the PTYs, the output tails, the sockets and a mirror of each
 * terminal's records and input modes, which the terminals' thread sends with every change.
 */

export type Question =
  | { name: 'settled' }
  | { name: 'userInput' }
  | { name: 'processExit' }
  | { name: 'read'; lines?: number; offset?: number }
  | { name: 'search'; pattern: string; maxMatches?: number }
  | { name: 'checkpoint' | 'savedScreen'; scrollback: number; deepBytes: number }
  | { name: 'finalText'; maxBytes: number };

/** To the terminals' thread; handled in the order sent. */
export type ToTerminals =
  | { type: 'open'; terminal: number; cols: number; rows: number; scrollback: number }
  | { type: 'write'; terminal: number; data: Uint8Array }
  | { type: 'resize'; terminal: number; cols: number; rows: number }
  | { type: 'close'; terminal: number }
  | { type: 'ask'; terminal: number; ask: number; question: Question };

/** From it, in the order its terminals parsed. `parsed` counts the writes parsed, and their bytes. */
export type FromTerminals =
  | { type: 'parsed'; terminal: number; writes: number; bytes: number; modes: TerminalModes }
  | { type: 'records'; terminal: number; records: WireRecord[]; declared: Manifest['declared_status'] }
  | { type: 'signalled' | 'marked'; terminal: number }
  | { type: 'title'; terminal: number; title: string }
  | { type: 'reply'; terminal: number; data: string | Uint8Array }
  /** The terminal threw (xterm, the store): it is closed, the session goes on without it. */
  | { type: 'failed'; terminal: number; message: string }
  | { type: 'answer'; ask: number; result?: unknown; error?: { code: number; message: string; data?: Record<string, unknown> } };

/** What a session hears from its terminal: `TerminalEvents`, and which of its writes are parsed. */
export interface RemoteTerminalEvents extends TerminalEvents {
  /** `writes` more writes (PTY reads) have been parsed, whole: `bytes` in all. */
  parsed(bytes: number, writes: number): void;
  /** The terminal failed and is gone: what it was asked is refused from now on. */
  failed(message: string): void;
}

/**
 * How many of `bytes` end on a character's end in UTF-8: all but a last sequence its lead byte
 * says is longer than what follows it. Bytes that are not UTF-8 count as whole (a decoder makes
 * them U+FFFD either way).
 */
export function wholeCharacters(bytes: Uint8Array): number {
  for (let at = bytes.length - 1; at >= Math.max(0, bytes.length - 4); at--) {
    const byte = bytes[at];
    if (byte < 0x80) return bytes.length;
    if (byte < 0xc0) continue; // a continuation: look for its lead
    const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : 2;
    return at + length > bytes.length && byte < 0xf8 ? at : bytes.length;
  }
  return bytes.length;
}

/** A worker, its parent port, or one end of a MessageChannel (the in-process tests). */
export interface TerminalPort {
  postMessage(message: unknown): void;
  on(event: 'message', listener: (message: unknown) => void): unknown;
}

/**
 * Messages to one port, posted together once per turn of the event loop: a flood of 4 KiB PTY
 * reads costs one message a turn, not one a read, on both threads.
 */
export class MessageBatch<T> {
  private pending: T[] = [];

  constructor(private readonly port: TerminalPort) {}

  send(message: T): void {
    if (this.pending.length === 0) setImmediate(() => this.flush());
    this.pending.push(message);
  }

  /** The message sent last and not posted yet: one a new message may be merged into. */
  get last(): T | undefined {
    return this.pending.at(-1);
  }

  private flush() {
    const messages = this.pending;
    this.pending = [];
    this.port.postMessage(messages);
  }
}

type ReadResult = ReturnType<CanonicalTerminal['read']>;
type SearchResult = ReturnType<CanonicalTerminal['search']>;
type Checkpoint = ReturnType<CanonicalTerminal['checkpoint']>;

/** The host's side of the terminals' thread: opens terminals there and routes what comes back. */
export class TerminalPool {
  private readonly terminals = new Map<number, RemoteTerminal>();
  private readonly asked = new Map<number, { resolve(result: unknown): void; reject(error: Error): void }>();
  private readonly batch: MessageBatch<ToTerminals>;
  private lastTerminal = 0;
  private lastAsk = 0;

  constructor(port: TerminalPort) {
    this.batch = new MessageBatch(port);
    port.on('message', (messages) => {
      for (const message of messages as FromTerminals[]) this.receive(message);
    });
  }

  open(cols: number, rows: number, scrollback: number, events: RemoteTerminalEvents): RemoteTerminal {
    const id = ++this.lastTerminal;
    const terminal = new RemoteTerminal(this, id, events);
    this.terminals.set(id, terminal);
    this.post({ type: 'open', terminal: id, cols, rows, scrollback });
    return terminal;
  }

  post(message: ToTerminals): void {
    this.batch.send(message);
  }

  ask<T>(terminal: number, question: Question): Promise<T> {
    const ask = ++this.lastAsk;
    return new Promise<T>((resolve, reject) => {
      this.asked.set(ask, { resolve: resolve as (result: unknown) => void, reject });
      this.post({ type: 'ask', terminal, ask, question });
    });
  }

  closed(terminal: number): void {
    this.terminals.delete(terminal);
    this.post({ type: 'close', terminal });
  }

  private receive(message: FromTerminals) {
    if (message.type !== 'answer') {
      this.terminals.get(message.terminal)?.receive(message);
      return;
    }
    const waiting = this.asked.get(message.ask);
    this.asked.delete(message.ask);
    if (!waiting) return;
    if (message.error) waiting.reject(new RpcError(message.error.code, message.error.message, message.error.data));
    else waiting.resolve(message.result);
  }
}

/**
 * Starts the terminals' thread from its bundle (`file`, terminals-main.ts). It is the host's to
 * the end: `failed` is told if it ever stops, which leaves every session without its terminal.
 */
export function startTerminalThread(file: string, failed: (error: Error) => void): TerminalPool {
  const worker = new Worker(file);
  worker.on('error', failed);
  worker.on('exit', (code) => failed(new Error(`the terminals' thread exited with code ${code}`)));
  // The host stops when it is asked to, not when its sockets and PTYs leave only this thread.
  worker.unref();
  return new TerminalPool(worker);
}

/**
 * A session's canonical terminal as the host's thread sees it: output and resizes go over in
 * stream order; records and input modes are mirrored as the terminal parses; reads, searches and
 * checkpoints are asked for.
 */
export class RemoteTerminal {
  private currentRecords: WireRecord[] = [];
  private declared: Manifest['declared_status'] = null;
  private inputModes: TerminalModes = { bracketedPaste: false, applicationCursorKeys: false };
  private parsedOffset = 0;
  private writtenOffset = 0;
  /** The end of a read that stops inside a character: it goes over with the next read. */
  private partial: Uint8Array | null = null;
  private disposed = false;

  constructor(
    private readonly pool: TerminalPool,
    private readonly id: number,
    private readonly events: RemoteTerminalEvents,
  ) {}

  /**
   * Hands a piece of output over, as read, up to its last whole character (the rest goes with
   * the next), so that every offset parsed, and a checkpoint's, falls between characters;
   * `events.parsed` says when all of it has been parsed.
   */
  write(data: Uint8Array): void {
    const bytes = this.partial ? Buffer.concat([this.partial, data]) : data;
    const end = wholeCharacters(bytes);
    this.partial = end < bytes.length ? bytes.slice(end) : null;
    if (end === 0) return;
    this.writtenOffset += end;
    this.pool.post({ type: 'write', terminal: this.id, data: bytes.subarray(0, end) });
  }

  /**
   * Resizes the terminal after the output handed over so far, at the output offset it returns:
   * mirrors resize there too, so both parse what follows at one size.
   */
  resize(cols: number, rows: number): number {
    this.pool.post({ type: 'resize', terminal: this.id, cols, rows });
    return this.writtenOffset;
  }

  /** The output offset the terminal has parsed up to. */
  get parsed(): number {
    return this.parsedOffset;
  }

  /** The program's modes that decide how input is encoded, as parsed so far. */
  get modes(): TerminalModes {
    return this.inputModes;
  }

  /** Resolves once the terminal has parsed all it was given (at once when it is closed). */
  async settled(): Promise<void> {
    const modes = await this.ask<TerminalModes | undefined>({ name: 'settled' });
    if (modes) this.inputModes = modes;
  }

  /** A real keyboard's input: done and error records go (OSC7501.md §10). */
  userInput(): Promise<void> {
    return this.ask({ name: 'userInput' });
  }

  /** The process (or the identified agent) is gone: its turn cannot still be running. */
  processExit(): Promise<void> {
    return this.ask({ name: 'processExit' });
  }

  read(lines?: number, offset?: number): Promise<ReadResult> {
    return this.ask({ name: 'read', lines, offset });
  }

  search(pattern: string, maxMatches?: number): Promise<SearchResult> {
    return this.ask({ name: 'search', pattern, maxMatches });
  }

  /** A mirror's starting point (CanonicalTerminal.checkpoint). */
  checkpoint(scrollback: number, deepBytes: number): Promise<Checkpoint> {
    return this.ask({ name: 'checkpoint', scrollback, deepBytes });
  }

  /** A checkpoint to keep on disk, with the rows of its screen that hold something (CanonicalTerminal.savedScreen). */
  savedScreen(scrollback: number, deepBytes: number): Promise<Checkpoint & { content_rows: number }> {
    return this.ask({ name: 'savedScreen', scrollback, deepBytes });
  }

  /** The last screen text within `maxBytes`. */
  finalText(maxBytes: number): Promise<string> {
    return this.ask({ name: 'finalText', maxBytes });
  }

  records(): WireRecord[] {
    return this.currentRecords;
  }

  declaredStatus(): Manifest['declared_status'] {
    return this.declared;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.pool.closed(this.id);
  }

  /** Asked of the thread, also once closed: it answers for a terminal it no longer has. */
  private ask<T>(question: Question): Promise<T> {
    return this.pool.ask(this.id, question);
  }

  /** What the terminal's thread says of this terminal. */
  receive(message: Exclude<FromTerminals, { type: 'answer' }>): void {
    switch (message.type) {
      case 'parsed':
        this.parsedOffset += message.bytes;
        this.inputModes = message.modes;
        this.events.parsed(message.bytes, message.writes);
        break;
      case 'records':
        this.currentRecords = message.records;
        this.declared = message.declared;
        this.events.recordsChanged();
        break;
      case 'signalled':
        this.events.signalled();
        break;
      case 'marked':
        this.events.marked();
        break;
      case 'title':
        this.events.title(message.title);
        break;
      case 'failed':
        this.events.failed(message.message);
        break;
      case 'reply':
        this.events.reply(typeof message.data === 'string' ? message.data : Buffer.from(message.data.buffer, message.data.byteOffset, message.data.byteLength));
        break;
    }
  }
}
