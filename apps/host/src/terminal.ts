import { replyFor, Scanner, Store, type Parsed, type StatusRecord } from '@paneflow/osc7501';
import { ErrorCode, READ_LINES_DEFAULT, READ_LINES_MAX, RpcError, SEARCH_MATCHES_DEFAULT, SEARCH_MATCHES_MAX, type Manifest, type WireRecord } from '@paneflow/protocol';
import { SerializeAddon } from '@xterm/addon-serialize';
import { Unicode11Addon } from '@xterm/addon-unicode11';
import { Terminal } from '@xterm/headless';
import { logicalLines, tailText } from './terminal-text';

/** What the canonical terminal tells its session. */
export interface TerminalEvents {
  /** The records changed, or a query or report moved the signal time. */
  recordsChanged(): void;
  /** A program queried OSC 7501 support or reported: it is capable. */
  signalled(): void;
  /** Something that may change the foreground: a prompt or command mark, a report. */
  marked(): void;
  title(title: string): void;
  /** One `write` has been parsed, whole. */
  parsed(bytes: number): void;
  /** What the terminal answers a program (DA1, cursor reports, the OSC 7501 query reply). */
  reply(data: string | Buffer): void;
}

/**
 * Character widths as programs measure them today (emoji and CJK wide, by Unicode 11 and later),
 * not xterm's default Unicode 6 tables: every terminal of a session — the host's, the mirrors —
 * must agree with the program, or the cursor drifts after the first emoji.
 */
function useModernWidths(term: Terminal): void {
  term.loadAddon(new Unicode11Addon());
  term.unicode.activeVersion = '11';
}

const toWire = (r: StatusRecord): WireRecord => ({
  id: r.id,
  state: r.state,
  kind: r.kind,
  progress: r.progress,
  app: r.app,
  effective_app: r.effectiveApp,
  title: r.title,
  msg: r.msg,
});

/**
 * A session's canonical terminal: a headless xterm that keeps the screen, with the OSC 7501
 * scanner in front of it so that reports, queries, prompt marks and resets apply in stream order
 * (OSC7501.md §2.9, §7.3). It is the only terminal that answers the program.
 */
export class CanonicalTerminal {
  private readonly term: Terminal;
  private readonly serializer = new SerializeAddon();
  private readonly scanner = new Scanner();
  private readonly store = new Store();
  /** Output bytes the terminal has parsed: what a checkpoint stands for. */
  private parsedOffset = 0;

  constructor(
    cols: number,
    rows: number,
    scrollback: number,
    private readonly events: TerminalEvents,
  ) {
    this.term = new Terminal({ cols, rows, scrollback, allowProposedApi: true });
    this.term.loadAddon(this.serializer);
    useModernWidths(this.term);
    this.term.parser.registerOscHandler(133, (data) => {
      if (data === 'A' || data.startsWith('A;')) this.changed(this.store.promptStart().length > 0);
      events.marked();
      return false;
    });
    this.term.parser.registerEscHandler({ final: 'c' }, () => {
      this.changed(this.store.reset().length > 0);
      return false; // xterm still performs the reset
    });
    this.term.onTitleChange((title) => events.title(title));
    this.term.onData((data) => events.reply(data));
    this.term.onBinary((data) => events.reply(Buffer.from(data, 'binary')));
  }

  /** Parses a piece of output; `events.parsed` says when all of it has been. */
  write(data: string, bytes: number): void {
    for (const piece of this.scanner.split(data)) {
      if (typeof piece === 'string') this.term.write(piece);
      else this.term.write('', () => this.apply(piece));
    }
    this.term.write('', () => {
      this.parsedOffset += bytes;
      this.events.parsed(bytes);
    });
  }

  private apply(item: Parsed) {
    if (item.type === 'discarded') return;
    this.events.signalled();
    this.events.marked();
    if (item.type === 'query') {
      this.events.reply(replyFor(item));
      this.events.recordsChanged(); // the signal time moved
      return;
    }
    this.store.apply(item);
    this.events.recordsChanged();
  }

  private changed(changed: boolean) {
    if (changed) this.events.recordsChanged();
  }

  /** Resolves once the terminal has parsed all it was given. */
  settled(): Promise<void> {
    return new Promise((resolve) => this.term.write('', resolve));
  }

  /** The program's modes that decide how input is encoded, as parsed so far. */
  get modes(): { bracketedPaste: boolean; applicationCursorKeys: boolean } {
    const modes = this.term.modes;
    return { bracketedPaste: modes.bracketedPasteMode, applicationCursorKeys: modes.applicationCursorKeysMode };
  }

  resize(cols: number, rows: number): void {
    this.term.resize(cols, rows);
  }

  /** The output offset the terminal has parsed up to. */
  get parsed(): number {
    return this.parsedOffset;
  }

  get size(): { cols: number; rows: number } {
    return { cols: this.term.cols, rows: this.term.rows };
  }

  /** A real keyboard's input: done and error records go (OSC7501.md §10). */
  userInput(): void {
    this.changed(this.store.userInput().length > 0);
  }

  /** The process (or the identified agent) is gone: its turn cannot still be running. */
  processExit(): void {
    this.changed(this.store.processExit().length > 0);
  }

  /**
   * A mirror's starting point (REFERENCE.md §1.4): the screen and scrollback serialized as the
   * escape sequences that redraw them, and the output offset they correspond to. Taken inside a
   * write callback, once everything given has been parsed, so the two agree exactly.
   */
  checkpoint(scrollback: number): Promise<{ checkpoint: string; output_offset: number; cols: number; rows: number }> {
    return new Promise((resolve) =>
      this.term.write('', () => resolve({ checkpoint: this.serializer.serialize({ scrollback }), output_offset: this.parsedOffset, ...this.size })),
    );
  }

  /** Lines counted from the end: `offset` 0 ends at the last line. */
  async read(lines = READ_LINES_DEFAULT, offset = 0) {
    await this.settled();
    const all = logicalLines(this.term);
    const count = Math.min(READ_LINES_MAX, Math.max(1, lines));
    if (offset > 0 && offset >= all.length) {
      throw new RpcError(ErrorCode.InvalidParams, `offset ${offset} is out of range: ${all.length} lines are kept`, { reason: 'offset_out_of_range', field: 'offset' });
    }
    const end = all.length - offset;
    const start = Math.max(0, end - count);
    return { text: all.slice(start, end).join('\n'), lines: end - start, total_lines: all.length, eof: offset === 0 };
  }

  /** Case-insensitive substring over every kept line; `line` is 1-based from the oldest. */
  async search(pattern: string, maxMatches = SEARCH_MATCHES_DEFAULT) {
    await this.settled();
    const limit = Math.min(SEARCH_MATCHES_MAX, Math.max(1, maxMatches));
    const needle = pattern.toLowerCase();
    const matches: Array<{ line: number; text: string }> = [];
    let truncated = false;
    logicalLines(this.term).forEach((text, index) => {
      if (!text.toLowerCase().includes(needle)) return;
      if (matches.length < limit) matches.push({ line: index + 1, text });
      else truncated = true;
    });
    return { matches, truncated };
  }

  /** The last screen text within `maxBytes`, kept when the process exits. */
  finalText(maxBytes: number): string {
    return tailText(logicalLines(this.term), maxBytes);
  }

  records(): WireRecord[] {
    return this.store.records().map(toWire);
  }

  declaredStatus(): Manifest['declared_status'] {
    const current = this.store.current();
    if (!current) return null;
    return { state: current.state, kind: current.kind, progress: current.progress, id: current.id, app: current.effectiveApp, title: current.title, message: current.msg };
  }

  dispose(): void {
    this.term.dispose();
  }
}
