import { replyFor, Scanner, Store, type Parsed } from '@paneflow/osc7501';
import { declaredStatusOf, wireRecord, type Manifest, type WireRecord } from '@paneflow/protocol';
import { cellStyle, currentAttr, PlainLines, resizeWithRoom, sgrToReplay, terminalCharWidth, writeSync } from '@paneflow/screen';
import { SerializeAddon } from '@xterm/addon-serialize';
import type { Terminal } from '@xterm/headless';
import { DeepRows, TERMINAL_SCROLLBACK } from './deep-rows';
import { modernTerminal } from './modern-terminal';
import { HOLD_UNFINISHED, lineEnd, PARSE_AT_LEAST, plainRun, readyToSkim, SKIM_COST, type MeasuredLines, type PlainRun } from './skim';
import { TerminalText } from './terminal-read';

// A session's terminal in stream order: the OSC 7501 scanner in front of xterm, records and
// marks applied between the pieces it parses, each write skimmed or parsed, and what it answers.

/** The program's modes that decide how input is encoded. */
export interface TerminalModes {
  bracketedPaste: boolean;
  applicationCursorKeys: boolean;
}

/** What the canonical terminal tells its session. */
export interface TerminalEvents {
  /** The records changed, or a query or report moved the signal time. */
  recordsChanged(): void;
  /** A program queried OSC 7501 support or reported: it is capable. */
  signalled(): void;
  /** Something that may change the foreground: a prompt or command mark, a report. */
  marked(): void;
  title(title: string): void;
  /** What the terminal answers a program (DA1, cursor reports, the OSC 7501 query reply). */
  reply(data: string | Buffer): void;
}

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
  /** The deep scrollback, when the session keeps more rows than the terminal does. */
  private readonly deep: DeepRows | null;
  private readonly text: TerminalText;
  /** Output bytes the terminal has parsed: what a checkpoint stands for. */
  private parsedOffset = 0;
  /** Lays out plain lines for the deep store without xterm (with a deep store only). */
  private readonly plain: PlainLines | null;
  /**
   * Plain lines at the end of the output so far, not parsed yet: the next write's may scroll them
   * off, and then they are skimmed too. xterm stands where they begin (`readyToSkim`); whatever
   * reads the terminal parses them first (`settle`).
   */
  private held = '';
  /** The ends and rows of the lines `held` holds whole, as `measure` found them. */
  private heldLines: MeasuredLines = { ends: [], rows: [] };

  constructor(
    cols: number,
    rows: number,
    scrollback: number,
    private readonly events: TerminalEvents,
  ) {
    this.term = modernTerminal({ cols, rows, scrollback: Math.min(scrollback, TERMINAL_SCROLLBACK) });
    this.term.loadAddon(this.serializer);
    const width = terminalCharWidth(this.term);
    this.deep = scrollback > TERMINAL_SCROLLBACK ? new DeepRows(this.term, scrollback, width) : null;
    this.plain = this.deep ? new PlainLines(cols, width) : null;
    this.text = new TerminalText(this.term, this.deep, this.serializer);
    this.term.parser.registerOscHandler(133, (data) => {
      if (data === 'A' || data.startsWith('A;')) this.changed(this.store.promptStart().length > 0);
      events.marked();
      return false;
    });
    this.term.parser.registerEscHandler({ final: 'c' }, () => {
      this.changed(this.store.reset().length > 0);
      this.deep?.clear();
      return false; // xterm still performs the reset
    });
    // ED 3 erases the scrollback: the deep rows go with the terminal's own.
    this.term.parser.registerCsiHandler({ final: 'J' }, (params) => {
      if (params[0] === 3 && this.deep?.shown) this.deep.clear();
      return false;
    });
    this.term.onTitleChange((title) => events.title(title));
    this.term.onData((data) => events.reply(data));
    this.term.onBinary((data) => events.reply(Buffer.from(data, 'binary')));
  }

  /**
   * Parses a piece of output (`bytes` of it), now and whole; the terminals' thread decides how much
   * at a time from what it returns: what it cost, in characters xterm parsed (skimmed ones count
   * `SKIM_COST`).
   */
  write(data: string, bytes: number): number {
    let cost = 0;
    for (const piece of this.scanner.split(data)) {
      if (typeof piece !== 'string') this.apply(piece);
      else if (!this.deep) {
        this.parse(piece);
        cost += piece.length;
      } else cost += this.writeDeep(this.deep, piece);
    }
    this.parsedOffset += bytes;
    return cost;
  }

  /**
   * With a deep store, a flood's plain lines (PlainLines) that the rest of this write scrolls off
   * the screen are skimmed: laid out straight into the store as rows, never parsed. xterm parses
   * the rest, and the last screen's worth of the lines, which it shows.
   */
  private writeDeep(deep: DeepRows, piece: string): number {
    const text = this.held + piece;
    const measured = this.heldLines;
    this.held = '';
    this.heldLines = { ends: [], rows: [] };
    let cost = 0;
    for (let at = 0; at < text.length; ) {
      let parseTo = at;
      if (this.readyToSkim()) {
        const run = plainRun(this.plain!, this.term.rows, text, at, at === 0 ? measured : { ends: [], rows: [] });
        if (run.skimTo > at) {
          this.skim(text, at, run);
          cost += (run.skimTo - at) * SKIM_COST;
          at = run.skimTo;
        }
        if (run.end === text.length || (run.unfinished && text.length - run.end <= HOLD_UNFINISHED)) {
          this.held = text.slice(at);
          this.heldLines = run.heldLines;
          break;
        }
        parseTo = run.end;
      }
      // Through a line's end, so that the next look starts on a fresh row.
      parseTo = Math.max(parseTo, lineEnd(text, Math.min(text.length, at + PARSE_AT_LEAST) - 1));
      deep.writeBounded(text.slice(at, parseTo));
      cost += parseTo - at;
      at = parseTo;
    }
    return cost;
  }

  /**
   * Before anything reads the terminal: parses the plain lines held back, and gives the terminal
   * back the rows a resize brought onto the screen from the store that the program drew over.
   */
  private settle(): void {
    if (this.held.length > 0) {
      const held = this.held;
      this.held = '';
      this.heldLines = { ends: [], rows: [] };
      this.deep!.writeBounded(held);
    }
    this.deep?.reclaimDrawnOver();
  }

  /** Whether what comes next would be laid out as PlainLines lays it out (skim.ts). */
  private readyToSkim(): boolean {
    return readyToSkim(this.term);
  }

  /**
   * Skims the plain lines from `from` to `run.skimTo`: every row above the cursor goes to the
   * deep store first (the lines would scroll them all off), then the lines, as they came (laid out
   * into rows when read). xterm takes their SGR state, and its bottom row, the first not moved,
   * is blanked in it as the last line's feed would have scrolled it in (its background painted).
   */
  private skim(text: string, from: number, run: PlainRun): void {
    const deep = this.deep!;
    const buffer = this.term.buffer.normal;
    deep.moveRows(buffer.baseY + buffer.cursorY);
    const style = cellStyle(currentAttr(this.term));
    deep.addSkimmed(text, from, run.skimTo, style, run.rows, run.lines);
    this.parse(`${sgrToReplay(text, from, run.skimTo)}\x1b[2K`);
  }

  /**
   * xterm parses text now, through its write buffer's synchronous path (the same parser its timed
   * writes run in slices of up to 12 ms, which would hold every other terminal of the thread up).
   */
  private parse(text: string) {
    if (text.length > 0) writeSync(this.term, text);
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

  /** The program's modes that decide how input is encoded, as parsed so far. */
  get modes(): TerminalModes {
    const modes = this.term.modes;
    return { bracketedPaste: modes.bracketedPasteMode, applicationCursorKeys: modes.applicationCursorKeysMode };
  }

  /** Resizes after what was parsed; rows in the deep store keep their width (DeepRows.resize). */
  resize(cols: number, rows: number): void {
    this.settle();
    if (this.plain) this.plain.cols = cols;
    if (this.deep) this.deep.resize(cols, rows);
    else resizeWithRoom(this.term, cols, rows);
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
   * escape sequences that redraw them, and the output offset they correspond to. It carries
   * at most `scrollback` rows of scrollback: the newest, and of the deep store's only those whose
   * replay fits in `deepBytes` (UTF-8); `scrollback_rows` says how many it carries, `dropped_rows`
   * how many the store has dropped.
   */
  checkpoint(scrollback: number, deepBytes: number): { checkpoint: string; output_offset: number; cols: number; rows: number; scrollback_rows: number; dropped_rows: number } {
    this.settle();
    return { ...this.text.serialize(scrollback, deepBytes), output_offset: this.parsedOffset, ...this.size, dropped_rows: this.text.droppedRows };
  }

  /** A checkpoint to keep on disk, and how many rows of the normal screen, from the top, hold something. */
  savedScreen(scrollback: number, deepBytes: number): ReturnType<CanonicalTerminal['checkpoint']> & { content_rows: number } {
    const checkpoint = this.checkpoint(scrollback, deepBytes);
    const buffer = this.term.buffer.normal;
    let rows = this.term.rows;
    while (rows > 0 && buffer.getLine(buffer.baseY + rows - 1)?.translateToString(true) === '') rows--;
    return { ...checkpoint, content_rows: rows };
  }

  /** Lines counted from the end: `offset` 0 ends at the last line. */
  read(lines?: number, offset?: number) {
    this.settle();
    return this.text.read(lines, offset);
  }

  /** Case-insensitive substring over every kept line; `line` is 1-based from the oldest. */
  search(pattern: string, maxMatches?: number) {
    this.settle();
    return this.text.search(pattern, maxMatches);
  }

  /** The last screen text within `maxBytes`, kept when the process exits. */
  finalText(maxBytes: number): string {
    this.settle();
    return this.text.finalText(maxBytes);
  }

  records(): WireRecord[] {
    return this.store.records().map(wireRecord);
  }

  declaredStatus(): Manifest['declared_status'] {
    return declaredStatusOf(this.store.current());
  }

  dispose(): void {
    this.term.dispose();
  }
}
