import { writeSync, type CharWidth } from '@paneflow/screen';
import type { IMarker, Terminal } from '@xterm/headless';
import { ScrollbackStore } from './scrollback';

// Which of the terminal's rows have moved to the deep store, and when the others move: after each
// piece parsed, before plain lines are skimmed past them, before a resize reflows them.

/**
 * Rows of scrollback the headless terminal itself keeps when a session keeps more: the rest goes
 * to the session's `ScrollbackStore`, compactly. Rows are moved there once more than
 * `ARCHIVE_AT` wait in the terminal's scrollback, down to `TAIL_KEPT` (the recent rows a resize
 * still reflows); output is parsed in pieces that add at most `PIECE_ROWS` rows each, so no row
 * leaves the terminal before it has been moved (140 + 100 < 250). 250 rows, not more: each costs about 1 KiB.
 */
export const TERMINAL_SCROLLBACK = 250;
const ARCHIVE_AT = 140;
const TAIL_KEPT = 50;
const PIECE_ROWS = 100;
// eslint-disable-next-line no-control-regex -- what moves the cursor down a row
const ROW_FEEDS = /[\n\v\f\u0084\u0085]|\x1bD|\x1bE/g;
/** Compressed bytes of deep scrollback a session keeps; past it the oldest rows go (REFERENCE.md: max scrollback). */
export const SCROLLBACK_STORE_BYTES = 8 * 1024 * 1024;

/** A session's deep scrollback and the border between it and the rows its terminal still holds. */
export class DeepRows {
  readonly store: ScrollbackStore;
  /**
   * The first row of the terminal not moved to the store yet (from row 0 while null). A marker, so
   * that xterm keeps it on its row as the oldest rows are trimmed and as a resize reflows them; if
   * its row is trimmed, everything above went with it, and the terminal holds no moved row.
   */
  private boundary: IMarker | null = null;
  /**
   * The text of the rows a resize to more rows brought back onto the screen from above the border
   * (rows in the store), as they were then, the nearest the border last. After a skimmed flood
   * xterm's copies there are rows from before it, not what the store holds.
   */
  private broughtBack: string[] = [];

  constructor(
    private readonly term: Terminal,
    scrollback: number,
    width: CharWidth,
  ) {
    this.store = new ScrollbackStore(scrollback, SCROLLBACK_STORE_BYTES, width);
  }

  /**
   * The store while the normal screen is shown: it gains no scrollback while the alternate one
   * is, and what is read then is the alternate screen alone, as before the store.
   */
  get shown(): ScrollbackStore | null {
    return this.term.buffer.active.type === 'normal' ? this.store : null;
  }

  /** The first row of the normal buffer not moved to the store. */
  firstUnarchived(): number {
    return this.boundary && !this.boundary.isDisposed ? this.boundary.line : 0;
  }

  /**
   * Parses text now, in pieces that add at most `PIECE_ROWS` rows each (halved until they do),
   * moving rows to the store after each. A row is added by a line feed (VT, FF, IND and NEL too)
   * or by a wrap, at most every cols / 2 characters; REP can add more, and a row that leaves the
   * terminal unmoved is then missing from the store, never repeated.
   */
  writeBounded(text: string): void {
    ROW_FEEDS.lastIndex = 0;
    let rows = Math.ceil((2 * text.length) / this.term.cols) + 1;
    while (rows <= PIECE_ROWS && ROW_FEEDS.exec(text)) rows++;
    if (rows <= PIECE_ROWS || text.length < 2) {
      if (text.length > 0) writeSync(this.term, text);
      this.archive(ARCHIVE_AT);
      return;
    }
    const half = text.length >> 1;
    this.writeBounded(text.slice(0, half));
    this.writeBounded(text.slice(half));
  }

  /** Moves the rows not moved yet, up to `last` (not included), to the store; `last` is then the first not moved. */
  moveRows(last: number): void {
    const buffer = this.term.buffer.normal;
    const cell = buffer.getNullCell();
    for (let row = this.firstUnarchived(); row < last; row++) this.store.addLine(buffer.getLine(row)!, cell);
    this.store.commit();
    this.boundary?.dispose();
    this.boundary = this.term.registerMarker(last - buffer.baseY - buffer.cursorY) ?? null;
  }

  /** The scrollback was erased (RIS, ED 3): the store's rows go with the terminal's. */
  clear(): void {
    this.store.clear();
    this.boundary?.dispose();
    this.boundary = null;
  }

  /**
   * Rows already in the store keep the width they were printed at; the terminal reflows its own.
   * Everything in its scrollback is moved first, so no row can be pushed out unmoved; then the
   * border is found again by the cursor, which xterm keeps on its line: as many logical lines
   * above it as there were between the screen's top and the cursor (xterm does not keep a marker
   * on its row when a reflow also trims). A logical line that crosses the border (the screen's
   * first row continuing a row above it) comes out repeated in part.
   */
  resize(cols: number, rows: number): void {
    if (!this.shown) {
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
    this.broughtBack = [];
    const border = this.firstUnarchived();
    for (let above = buffer.baseY; above < border; above++) this.broughtBack.push(buffer.getLine(above)?.translateToString(true) ?? '');
  }

  /**
   * How many of the screen's top rows, above the border, a checkpoint takes from the store: all of
   * them while none has changed since a resize brought them back (the store's are the true rows
   * then), none once the program drew over any (the screen is then what it drew).
   */
  screenRowsFromStore(): number {
    const buffer = this.term.buffer.normal;
    const border = this.firstUnarchived();
    const onScreen = border - buffer.baseY;
    if (onScreen <= 0 || onScreen > this.broughtBack.length) return 0;
    for (let m = 1; m <= onScreen; m++) {
      if (buffer.getLine(border - m)?.translateToString(true) !== this.broughtBack[this.broughtBack.length - m]) return 0;
    }
    return onScreen;
  }

  /** Moves the terminal's oldest scrollback rows to the store while more than `over` wait there. */
  private archive(over: number) {
    const buffer = this.term.buffer.normal;
    if (!this.shown || buffer.baseY - this.firstUnarchived() <= over) return;
    this.moveRows(buffer.baseY - Math.min(over, TAIL_KEPT));
  }
}
