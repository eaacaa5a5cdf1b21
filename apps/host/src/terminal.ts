import { replyFor, Scanner, Store, type Parsed, type StatusRecord } from '@paneflow/osc7501';
import { ErrorCode, READ_LINES_DEFAULT, READ_LINES_MAX, RpcError, SEARCH_MATCHES_DEFAULT, SEARCH_MATCHES_MAX, type Manifest, type WireRecord } from '@paneflow/protocol';
import { cellStyle, joinRows, PlainLines, rowToSgr, sgrToReplay, UNFINISHED, type PaneCell } from '@paneflow/screen';
import { SerializeAddon } from '@xterm/addon-serialize';
import { Unicode11Addon } from '@xterm/addon-unicode11';
import { Terminal, type IMarker } from '@xterm/headless';
import { ScrollbackStore } from './scrollback';
import { rowsOf, tailText } from './terminal-text';

/**
 * Rows of scrollback the headless terminal itself keeps when a session keeps more: the rest goes
 * to the session's `ScrollbackStore`, compactly. Rows are moved there once more than
 * `ARCHIVE_AT` wait in the terminal's scrollback, down to `TAIL_KEPT` (the recent rows a resize
 * still reflows); output is parsed in pieces that add at most `PIECE_ROWS` rows each, so no row
 * leaves the terminal before it has been moved (140 + 100 < 250). 250 rows, not more: each costs about 1 KiB.
 */
const TERMINAL_SCROLLBACK = 250;
const ARCHIVE_AT = 140;
const TAIL_KEPT = 50;
const PIECE_ROWS = 100;
// eslint-disable-next-line no-control-regex -- what moves the cursor down a row
const ROW_FEEDS = /[\n\v\f\u0084\u0085]|\x1bD|\x1bE/g;
/**
 * Characters the terminal parses at least before it looks again for plain lines to skim: a
 * program whose output never becomes plain (a full-screen one, a scroll region) is parsed in
 * pieces this large, not line by line.
 */
const PARSE_AT_LEAST = 1024;
/** The most of a line not ended yet that is held back with the plain lines before it (`held`). */
const HOLD_UNFINISHED = 4 * 1024;
/** What a skimmed character costs beside a parsed one, for the thread's slices (measured: about 1/8). */
const SKIM_COST = 1 / 8;
/** Compressed bytes of deep scrollback a session keeps; past it the oldest rows go (REFERENCE.md: max scrollback). */
export const SCROLLBACK_STORE_BYTES = 8 * 1024 * 1024;

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
 * Character widths as programs measure them today (emoji and CJK wide, by Unicode 11 and later),
 * not xterm's default Unicode 6 tables: every terminal of a session — the host's, the mirrors —
 * must agree with the program, or the cursor drifts after the first emoji.
 */
function useModernWidths(term: Terminal): void {
  term.loadAddon(new Unicode11Addon());
  term.unicode.activeVersion = '11';
}

/**
 * What the terminal reads of xterm beyond its public API: its write buffer's synchronous path, and
 * the state that decides whether plain lines can be skimmed (`readyToSkim`).
 */
interface XtermInternals {
  _core: {
    _writeBuffer: { writeSync(data: string): void };
    buffers: { active: XtermBuffer; normal: XtermBuffer };
    coreService: { decPrivateModes: { wraparound: boolean }; modes: { insertMode: boolean } };
    _charsetService: { charset: unknown };
    _inputHandler: { _curAttrData: PaneCell & { isOverline(): number; extended: XtermExtendedAttrs }; _parser: { currentState: number } };
    unicodeService: { wcwidth(codePoint: number): number };
  };
}
interface XtermExtendedAttrs {
  underlineStyle: number;
  underlineColor: number;
}
interface XtermBuffer {
  x: number;
  y: number;
  ybase: number;
  scrollTop: number;
  scrollBottom: number;
  lines: { get(index: number): { isWrapped: boolean; getTrimmedLength(): number } | undefined };
}
/** The parser's state between sequences. */
const GROUND = 0;
/** xterm's underline styles up to the one a kept row keeps: none, single. */
const SINGLE_UNDERLINE = 1;

/** Plain lines found in a write (`CanonicalTerminal.plainRun`). */
interface PlainRun {
  /** Where the last of them ends. */
  end: number;
  /** The text ends in a line that is plain so far, not ended yet. */
  unfinished: boolean;
  /** Where those to skim end, and their rows and lines. */
  skimTo: number;
  rows: number;
  lines: number;
  /** The ends (from `skimTo`) and rows of the others: what is held back if the write ends with them. */
  heldLines: { ends: number[]; rows: number[] };
}

/** Where the line that `at` is on ends: after its line feed, or at the text's end. */
function lineEnd(text: string, at: number): number {
  const feed = text.indexOf('\n', at);
  return feed < 0 ? text.length : feed + 1;
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
  /** The deep scrollback, when the session keeps more rows than the terminal does. */
  private readonly deep: ScrollbackStore | null;
  /**
   * The first row of the terminal not moved to `deep` yet (from row 0 while null). A marker, so
   * that xterm keeps it on its row as the oldest rows are trimmed and as a resize reflows them; if
   * its row is trimmed, everything above went with it, and the terminal holds no moved row.
   */
  private boundary: IMarker | null = null;
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
  private heldLines: { ends: number[]; rows: number[] } = { ends: [], rows: [] };

  constructor(
    cols: number,
    rows: number,
    scrollback: number,
    private readonly events: TerminalEvents,
  ) {
    this.term = new Terminal({ cols, rows, scrollback: Math.min(scrollback, TERMINAL_SCROLLBACK), allowProposedApi: true });
    this.term.loadAddon(this.serializer);
    useModernWidths(this.term);
    const unicode = this.core.unicodeService;
    const width = (codePoint: number) => unicode.wcwidth(codePoint);
    this.deep = scrollback > TERMINAL_SCROLLBACK ? new ScrollbackStore(scrollback, SCROLLBACK_STORE_BYTES, width) : null;
    this.plain = this.deep ? new PlainLines(cols, width) : null;
    this.term.parser.registerOscHandler(133, (data) => {
      if (data === 'A' || data.startsWith('A;')) this.changed(this.store.promptStart().length > 0);
      events.marked();
      return false;
    });
    this.term.parser.registerEscHandler({ final: 'c' }, () => {
      this.changed(this.store.reset().length > 0);
      this.forgetScrollback();
      return false; // xterm still performs the reset
    });
    // ED 3 erases the scrollback: the deep rows go with the terminal's own.
    this.term.parser.registerCsiHandler({ final: 'J' }, (params) => {
      if (params[0] === 3 && this.shownDeep) this.forgetScrollback();
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
      } else cost += this.writeDeep(piece);
    }
    this.parsedOffset += bytes;
    return cost;
  }

  private get core(): XtermInternals['_core'] {
    return (this.term as unknown as XtermInternals)._core;
  }

  /**
   * With a deep store, a flood's plain lines (PlainLines) that the rest of this write scrolls off
   * the screen are skimmed: laid out straight into the store as rows, never parsed. xterm parses
   * the rest, and the last screen's worth of the lines, which it shows.
   */
  private writeDeep(piece: string): number {
    const text = this.held + piece;
    const measured = this.heldLines;
    this.held = '';
    this.heldLines = { ends: [], rows: [] };
    let cost = 0;
    for (let at = 0; at < text.length; ) {
      let parseTo = at;
      if (this.readyToSkim()) {
        const run = this.plainRun(text, at, at === 0 ? measured : { ends: [], rows: [] });
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
      this.writeBounded(text.slice(at, parseTo));
      cost += parseTo - at;
      at = parseTo;
    }
    return cost;
  }

  /** Parses the plain lines held back, before anything reads the terminal. */
  private settle(): void {
    if (this.held.length === 0) return;
    const held = this.held;
    this.held = '';
    this.heldLines = { ends: [], rows: [] };
    this.writeBounded(held);
  }

  /**
   * Whether what comes next would be laid out as PlainLines lays it out: the normal screen, the
   * cursor on an empty bottom row of a full-screen scroll region, autowrap on, insert mode, a
   * character set and a link off, the parser between sequences, and a current style that a kept
   * row keeps whole (no overline, underline colour or underline but a single one).
   */
  private readyToSkim(): boolean {
    const core = this.core;
    const buffer = core.buffers.active;
    const bottom = this.term.rows - 1;
    if (buffer !== core.buffers.normal || buffer.x !== 0 || buffer.y !== bottom || buffer.scrollTop !== 0 || buffer.scrollBottom !== bottom) return false;
    if (!core.coreService.decPrivateModes.wraparound || core.coreService.modes.insertMode || core._charsetService.charset) return false;
    const input = core._inputHandler;
    const attr = input._curAttrData;
    if (input._parser.currentState !== GROUND || attr.isOverline()) return false;
    // A link shows as an underline style of its own (dashed), so the style check keeps links out too.
    if (attr.extended.underlineStyle > SINGLE_UNDERLINE || attr.extended.underlineColor !== 0) return false;
    const row = buffer.lines.get(buffer.ybase + buffer.y);
    return row !== undefined && !row.isWrapped && row.getTrimmedLength() === 0;
  }

  /**
   * The plain lines from `at`: where they end, whether the text ends in a plain line not ended
   * yet, and up to which of their line ends they can be skimmed (with the rows and lines skimmed):
   * all but the last that fill the screen, which xterm parses so as to show them.
   */
  private plainRun(text: string, at: number, known: { ends: number[]; rows: number[] }): PlainRun {
    const plain = this.plain!;
    // The lines held back were measured when they came: from `at` (0), the same offsets.
    const { ends, rows } = known;
    let end = plain.measure(text, ends.at(-1) ?? at);
    for (; end >= 0; end = plain.measure(text, end)) {
      ends.push(end);
      rows.push(plain.rows);
    }
    let shown = 0;
    let kept = ends.length;
    while (kept > 0 && shown < this.term.rows) shown += rows[--kept];
    let skimmedRows = 0;
    for (let line = 0; line < kept; line++) skimmedRows += rows[line];
    const skimTo = kept > 0 ? ends[kept - 1] : at;
    const heldLines = { ends: ends.slice(kept).map((lineEnd) => lineEnd - skimTo), rows: rows.slice(kept) };
    return { end: ends.at(-1) ?? at, skimTo, rows: skimmedRows, lines: kept, unfinished: end === UNFINISHED, heldLines };
  }

  /**
   * Skims the plain lines from `from` to `run.skimTo`: every row above the cursor goes to the
   * deep store first (the lines would scroll them all off), then the lines, as they came (laid out
   * into rows when read). xterm takes their SGR state, and its bottom row, the first not moved,
   * is blanked in it as the last line's feed would have scrolled it in (its background painted).
   */
  private skim(text: string, from: number, run: PlainRun): void {
    const buffer = this.term.buffer.normal;
    this.moveRows(buffer.baseY + buffer.cursorY);
    const style = cellStyle(this.core._inputHandler._curAttrData);
    this.deep!.addPlain(text, from, run.skimTo, style, this.term.cols, run.rows, run.lines);
    this.deep!.commit();
    this.parse(`${sgrToReplay(text, from, run.skimTo)}\x1b[2K`);
  }

  /**
   * xterm parses text now, through its write buffer's synchronous path (the same parser its timed
   * writes run in slices of up to 12 ms, which would hold every other terminal of the thread up).
   */
  private parse(text: string) {
    if (text.length > 0) this.core._writeBuffer.writeSync(text);
  }

  /**
   * Writes text in pieces that add at most `PIECE_ROWS` rows each (halved until they do), moving
   * rows to the deep store after each. A row is added by a line feed (VT, FF, IND and NEL too) or
   * by a wrap, at most every cols / 2 characters; REP can add more, and a row that leaves the
   * terminal unmoved is then missing from the store, never repeated.
   */
  private writeBounded(text: string): void {
    ROW_FEEDS.lastIndex = 0;
    let rows = Math.ceil((2 * text.length) / this.term.cols) + 1;
    while (rows <= PIECE_ROWS && ROW_FEEDS.exec(text)) rows++;
    if (rows <= PIECE_ROWS || text.length < 2) {
      this.parse(text);
      this.archive(ARCHIVE_AT);
      return;
    }
    const half = text.length >> 1;
    this.writeBounded(text.slice(0, half));
    this.writeBounded(text.slice(half));
  }

  /** Moves the terminal's oldest scrollback rows to the deep store while more than `over` wait there. */
  private archive(over: number) {
    const buffer = this.term.buffer.normal;
    if (!this.shownDeep || buffer.baseY - this.firstUnarchived() <= over) return;
    this.moveRows(buffer.baseY - Math.min(over, TAIL_KEPT));
  }

  /** Moves the rows not moved yet, up to `last` (not included), to the deep store; `last` is then the first not moved. */
  private moveRows(last: number) {
    const buffer = this.term.buffer.normal;
    const cell = buffer.getNullCell();
    for (let row = this.firstUnarchived(); row < last; row++) this.deep!.addLine(buffer.getLine(row)!, cell);
    this.deep!.commit();
    this.boundary?.dispose();
    this.boundary = this.term.registerMarker(last - buffer.baseY - buffer.cursorY) ?? null;
  }

  /**
   * The deep store while the normal screen is shown: it gains no scrollback while the alternate
   * one is, and what is read then is the alternate screen alone, as before the store.
   */
  private get shownDeep(): ScrollbackStore | null {
    return this.term.buffer.active.type === 'normal' ? this.deep : null;
  }

  private forgetScrollback() {
    this.deep?.clear();
    this.boundary?.dispose();
    this.boundary = null;
  }

  /** The shown screen's rows not in the deep store, to the last non-blank one. */
  private terminalRows(): Array<{ text: string; wrapped: boolean }> {
    return rowsOf(this.term, this.shownDeep ? this.firstUnarchived() : 0);
  }

  /** The first row of the normal buffer not moved to the deep store. */
  private firstUnarchived(): number {
    return this.boundary && !this.boundary.isDisposed ? this.boundary.line : 0;
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

  /**
   * Rows already in the deep store keep the width they were printed at; the terminal reflows
   * its own. Everything in its scrollback is moved first, so no row can be pushed out unmoved;
   * then the border is found again by the cursor, which xterm keeps on its line: as many logical
   * lines above it as there were between the screen's top and the cursor (xterm does not keep a
   * marker on its row when a reflow also trims). A logical line that crosses the border (the
   * screen's first row continuing a row above it) comes out repeated in part.
   */
  resize(cols: number, rows: number): void {
    this.settle();
    if (this.plain) this.plain.cols = cols;
    if (!this.shownDeep) {
      this.term.resize(cols, rows);
      return;
    }
    this.archive(0);
    const buffer = this.term.buffer.normal;
    const top = this.firstUnarchived();
    let lines = 0;
    for (let row = top + 1; row <= buffer.baseY + buffer.cursorY; row++) if (!buffer.getLine(row)?.isWrapped) lines++;
    this.term.resize(cols, rows);
    if (!this.boundary) return;
    const lineStart = (row: number) => {
      while (row > 0 && buffer.getLine(row)?.isWrapped) row--;
      return row;
    };
    let row = lineStart(buffer.baseY + buffer.cursorY);
    for (let n = 0; n < lines && row > 0; n++) row = lineStart(row - 1);
    this.boundary.dispose();
    this.boundary = this.term.registerMarker(row - buffer.baseY - buffer.cursorY) ?? null;
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
    return { ...this.serializeWithDeep(scrollback, deepBytes), output_offset: this.parsedOffset, ...this.size, dropped_rows: this.droppedRows };
  }

  /** The deep rows asked for that fit in `deepBytes`, redrawn with their colours, then the terminal's own serialization. */
  private serializeWithDeep(scrollback: number, deepBytes: number): { checkpoint: string; scrollback_rows: number } {
    const buffer = this.term.buffer.normal;
    const inTerminal = Math.min(scrollback, Math.max(0, buffer.baseY - this.firstUnarchived()));
    let rowsLeft = scrollback - inTerminal;
    let bytesLeft = deepBytes;
    // Each deep row's replay: its SGR text, after a CR LF unless it continues the row above.
    const replayed: string[][] = [];
    const deepRows = !this.deep || rowsLeft <= 0 ? [] : this.deep.rowsFromEnd((rows) => {
        const block: string[] = [];
        for (let i = rows.length - 1; i >= 0 && rowsLeft > 0; i--) {
          const text = rowToSgr(rows[i]);
          const size = Buffer.byteLength(text) + 2;
          if (size > bytesLeft) break;
          bytesLeft -= size;
          rowsLeft--;
          block.push(text);
        }
        replayed.unshift(block.reverse());
        return block.length;
      });
    const texts = replayed.flat();
    let prefix = texts.map((text, i) => (i > 0 && !deepRows[i].wrapped ? '\r\n' : '') + text).join('');
    // The terminal's first row starts a line of its own unless it continues the last deep row.
    if (deepRows.length > 0 && !buffer.getLine(buffer.baseY - inTerminal)?.isWrapped) prefix += '\r\n';
    return { checkpoint: prefix + this.serializer.serialize({ scrollback: inTerminal }), scrollback_rows: deepRows.length + inTerminal };
  }

  /** Rows of scrollback dropped, oldest first, past the deep store's limits since the session started. */
  private get droppedRows(): number {
    return this.deep?.droppedRows ?? 0;
  }

  /** Lines counted from the end: `offset` 0 ends at the last line. */
  read(lines = READ_LINES_DEFAULT, offset = 0) {
    this.settle();
    const rows = this.terminalRows();
    const inTerminal = joinRows(rows);
    const deepLines = this.shownDeep?.lines ?? 0;
    const continues = deepLines > 0 && rows[0]?.wrapped === true;
    const total = deepLines + inTerminal.length - (continues ? 1 : 0);
    const count = Math.min(READ_LINES_MAX, Math.max(1, lines));
    if (offset > 0 && offset >= total) {
      throw new RpcError(ErrorCode.InvalidParams, `offset ${offset} is out of range: ${total} lines are kept`, { reason: 'offset_out_of_range', field: 'offset' });
    }
    const end = total - offset;
    const start = Math.max(0, end - count);
    // `tail` ends with the last line; only the deep blocks that hold lines from `start` on are read.
    const tail = start >= deepLines ? inTerminal : joinRows(rows, this.deepTail(deepLines - start + 1));
    const text = tail.slice(tail.length - (total - start), tail.length - offset).join('\n');
    return { text, lines: end - start, total_lines: total, eof: offset === 0, dropped_rows: this.droppedRows };
  }

  /** Logical lines from the end of the deep store, at least `count` of them (fewer when it holds fewer), whole. */
  private deepTail(count: number): string[] {
    const { rows, complete } = this.deep!.tailTexts(count);
    const lines = joinRows(rows);
    // The first row read may continue a line begun in a block not read: that line is not whole.
    if (!complete) lines.shift();
    return lines;
  }

  /** Every kept line, oldest first: the deep store's, then the terminal's. */
  private allLines(): string[] {
    const deep = this.shownDeep ? joinRows(this.shownDeep.allTexts()) : [];
    return joinRows(this.terminalRows(), deep);
  }

  /** Case-insensitive substring over every kept line; `line` is 1-based from the oldest. */
  search(pattern: string, maxMatches = SEARCH_MATCHES_DEFAULT) {
    this.settle();
    const limit = Math.min(SEARCH_MATCHES_MAX, Math.max(1, maxMatches));
    const needle = pattern.toLowerCase();
    const matches: Array<{ line: number; text: string }> = [];
    let truncated = false;
    this.allLines().forEach((text, index) => {
      if (!text.toLowerCase().includes(needle)) return;
      if (matches.length < limit) matches.push({ line: index + 1, text });
      else truncated = true;
    });
    return { matches, truncated };
  }

  /** The last screen text within `maxBytes`, kept when the process exits. */
  finalText(maxBytes: number): string {
    this.settle();
    const rows = this.terminalRows();
    let lines = joinRows(rows);
    let chars = lines.reduce((sum, line) => sum + line.length + 1, 0);
    // Deep blocks only while the text is short of `maxBytes` (a character is at least a byte).
    if (this.shownDeep && chars < maxBytes) {
      const deep = this.shownDeep.textsFromEnd((block) => {
        for (const row of block) chars += row.text.length + 1;
        return chars >= maxBytes;
      });
      const deepLines = joinRows(deep.rows);
      if (!deep.complete) deepLines.shift();
      lines = joinRows(rows, deepLines);
    }
    return tailText(lines, maxBytes);
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
