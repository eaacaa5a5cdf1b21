import { followRow, writeSync, type CharWidth, type FollowedRow } from '@paneflow/screen';
import type { Terminal } from '@xterm/headless';
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
   * The first row of the terminal not moved to the store yet (row 0 while null), followed as xterm
   * trims, inserts and deletes rows. Not a marker: right after a resize it is on the screen, where
   * an erase (ED), DL or IL would dispose or move a marker, and with it every row moved so far
   * would be read again from the terminal.
   */
  private border: FollowedRow | null = null;
  /**
   * The rows a resize to more rows brought back onto the screen from above the border (the
   * store's newest rows): where the first of them is now, and each one's text and wrap as it was
   * then. They are the store's while they stay so (after a skimmed flood xterm's copies are rows
   * from before it), the terminal's again once the program draws over them (`reclaimDrawnOver`).
   */
  private broughtBack: { first: FollowedRow; rows: Array<{ text: string; wrapped: boolean }>; reflowed: boolean } | null = null;

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

  /** The first row of the normal buffer not moved to the store (the rows above it are read from the store). */
  firstUnarchived(): number {
    return this.border?.line ?? 0;
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
    this.reclaimDrawnOver();
    const buffer = this.term.buffer.normal;
    const cell = buffer.getNullCell();
    for (let row = this.firstUnarchived(); row < last; row++) this.store.addLine(buffer.getLine(row)!, cell);
    this.store.commit();
    this.placeBorder(last);
    this.forgetBroughtBack();
  }

  /** The scrollback was erased (RIS, ED 3): the store's rows go with the terminal's. */
  clear(): void {
    this.store.clear();
    this.border?.dispose();
    this.border = null;
    this.forgetBroughtBack();
  }

  /**
   * The rows a resize brought back from the store become the terminal's again from the first the
   * program drew over, moved or deleted: the store lets go of its copies and the border moves up
   * to them, so that what is read there is what the program drew. Row for row when the width
   * stayed (a line the border then splits is as xterm has it, part scrollback, part drawn over);
   * after a reflow only whole lines match the store's, from the start of that row's line.
   */
  reclaimDrawnOver(): void {
    if (!this.broughtBack || !this.border) return;
    const { first, rows, reflowed } = this.broughtBack;
    const buffer = this.term.buffer.normal;
    const top = first.line;
    const border = this.border.line;
    let same = 0;
    while (same < rows.length && top + same < border && buffer.getLine(top + same)?.translateToString(true) === rows[same].text) same++;
    if (same === rows.length && top + same === border) return;
    let from = top + same;
    if (!reflowed) this.store.dropNewestRows(rows.length - same);
    else {
      let lines = 0;
      if (same < rows.length) {
        while (same > 0 && rows[same].wrapped) same--;
        lines = 1;
        for (let row = same + 1; row < rows.length; row++) if (!rows[row].wrapped) lines++;
      }
      // A line that began above the rows brought back is read from the terminal from its start.
      from = top + same;
      if (same === 0 && rows[0].wrapped) while (from > 0 && buffer.getLine(from)?.isWrapped) from--;
      this.store.dropNewestLines(lines);
    }
    this.placeBorder(from);
    if (same > 0) this.broughtBack.rows = rows.slice(0, same);
    else this.forgetBroughtBack();
  }

  /** How many of the store's logical lines the screen's top rows, above the border, show (in part for the first). */
  linesOnScreen(): number {
    const buffer = this.term.buffer.normal;
    const border = this.firstUnarchived();
    const noted = this.broughtBack?.rows ?? [];
    let lines = 0;
    for (let row = buffer.baseY; row < border; row++) {
      const note = noted[noted.length - (border - row)];
      if (row === buffer.baseY || !(note ? note.wrapped : buffer.getLine(row)?.isWrapped)) lines++;
    }
    return lines;
  }

  private forgetBroughtBack() {
    this.broughtBack?.first.dispose();
    this.broughtBack = null;
  }

  /**
   * Rows already in the store keep the width they were printed at; the terminal reflows its own
   * (the normal buffer's behind the alternate screen too). Everything in its scrollback is moved
   * first, so no row can be pushed out unmoved. Then the border is found again by the cursor,
   * which xterm keeps on its line: as many logical lines from it as there were before (a reflow
   * that also trims moves followed rows and markers wrongly). A logical line that crossed the
   * border (its first row continuing a row above it) is then the terminal's whole: the store lets
   * go of its first rows.
   */
  resize(cols: number, rows: number): void {
    this.reclaimDrawnOver();
    this.archive(0);
    const buffer = this.term.buffer.normal;
    const reflowed = cols !== this.term.cols;
    const top = this.firstUnarchived();
    const crossing = buffer.getLine(top)?.isWrapped === true;
    // The border's distance from the cursor in logical lines: above it, or below it when the
    // program moved the cursor up onto rows a resize brought back.
    const cursor = buffer.baseY + buffer.cursorY;
    const above = top <= cursor;
    let lines = 0;
    for (let row = Math.min(top, cursor) + 1; row <= Math.max(top, cursor); row++) if (!buffer.getLine(row)?.isWrapped) lines++;
    this.term.resize(cols, rows);
    if (!this.border) return;
    const lineStart = (row: number) => {
      while (row > 0 && buffer.getLine(row)?.isWrapped) row--;
      return row;
    };
    const nextLineStart = (row: number) => {
      do row++;
      while (row < buffer.length - 1 && buffer.getLine(row)?.isWrapped);
      return row;
    };
    let row = lineStart(buffer.baseY + buffer.cursorY);
    for (let n = 0; n < lines && (above ? row > 0 : row < buffer.length - 1); n++) row = above ? lineStart(row - 1) : nextLineStart(row);
    if (crossing) this.store.dropNewestLines(1);
    this.placeBorder(row);
    this.forgetBroughtBack();
    this.noteBroughtBack(reflowed);
  }

  /**
   * Notes the rows above the border a resize brought onto the screen, as they are now. Where
   * their lines start is the store's to say when the width stayed (each row one of its newest
   * rows; after a skimmed flood xterm's own rows there are older ones), xterm's after a reflow.
   */
  private noteBroughtBack(reflowed: boolean) {
    const buffer = this.term.buffer.normal;
    const border = this.firstUnarchived();
    const count = border - buffer.baseY;
    if (count <= 0) return;
    let wanted = count;
    const stored = reflowed
      ? []
      : this.store.rowsFromEnd((block) => {
          const taken = Math.min(wanted, block.length);
          wanted -= taken;
          return taken;
        });
    const rows: Array<{ text: string; wrapped: boolean }> = [];
    for (let row = buffer.baseY; row < border; row++) {
      const line = buffer.getLine(row);
      const inStore = stored[stored.length - (border - row)];
      rows.push({ text: line?.translateToString(true) ?? '', wrapped: inStore ? inStore.wrapped : (line?.isWrapped ?? false) });
    }
    this.broughtBack = { first: followRow(this.term, buffer.baseY), rows, reflowed };
  }

  private placeBorder(row: number) {
    this.border?.dispose();
    this.border = followRow(this.term, row);
  }

  /**
   * Moves the terminal's oldest scrollback rows to the store while more than `over` wait there
   * (the normal buffer's: behind the alternate screen it gains none, but a resize reflows it).
   */
  private archive(over: number) {
    const buffer = this.term.buffer.normal;
    if (buffer.baseY - this.firstUnarchived() <= over) return;
    this.moveRows(buffer.baseY - Math.min(over, TAIL_KEPT));
  }
}
