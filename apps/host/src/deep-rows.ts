import { followRow, replaceLine, roomForResize, rowToSgr, writeSync, type CharWidth, type FollowedRow, type Style } from '@paneflow/screen';
import type { Terminal } from '@xterm/headless';
import { modernTerminal } from './modern-terminal';
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
   * then. They are the store's while they stay so, the terminal's again once the program draws
   * over them (`reclaimDrawnOver`).
   */
  private broughtBack: { first: FollowedRow; rows: Array<{ text: string; wrapped: boolean }>; rowForRow: boolean } | null = null;
  /**
   * How many of the store's newest rows were laid out at the terminal's width as it is now (moved
   * or skimmed since the last resize that changed it): rows brought back from among them are the
   * store's row for row, older ones were reflowed since.
   */
  private rowsAtWidth = 0;
  /** Of the store's rows, how many of its newest are laid out at this width (its limits may have dropped some of those counted). */
  private get storedAtWidth(): number {
    return Math.min(this.rowsAtWidth, this.store.rows);
  }
  /** A flood was skimmed since the last resize: xterm's rows above the border are from before it. */
  private staleAbove = false;

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
    const first = this.firstUnarchived();
    for (let row = first; row < last; row++) this.store.addLine(buffer.getLine(row)!, cell);
    this.rowsAtWidth += Math.max(0, last - first);
    this.store.commit();
    this.placeBorder(last);
    this.forgetBroughtBack();
  }

  /** A flood's plain lines skimmed past the terminal (`rows` rows of `lines` lines), after `moveRows` to the cursor. */
  addSkimmed(text: string, from: number, to: number, style: Style, rows: number, lines: number): void {
    this.store.addPlain(text, from, to, style, this.term.cols, rows, lines);
    this.rowsAtWidth += rows;
    this.staleAbove = true;
    this.store.commit();
  }

  /** The scrollback was erased (RIS, ED 3): the store's rows go with the terminal's. */
  clear(): void {
    this.rowsAtWidth = 0;
    this.staleAbove = false;
    this.store.clear();
    this.border?.dispose();
    this.border = null;
    this.forgetBroughtBack();
  }

  /**
   * The rows a resize brought back from the store become the terminal's again from the first the
   * program drew over, moved or deleted, so that what is read there is what the program drew.
   */
  reclaimDrawnOver(): void {
    if (!this.broughtBack || !this.border) return;
    const { first, rows } = this.broughtBack;
    const buffer = this.term.buffer.normal;
    const top = first.line;
    const border = this.border.line;
    let same = 0;
    while (same < rows.length && top + same < border && buffer.getLine(top + same)?.translateToString(true) === rows[same].text) same++;
    if (same < rows.length || top + same !== border) this.giveBack(same);
  }

  /**
   * The rows brought back from the `from`-th on are the terminal's: the store lets go of its copies
   * and the border moves up to them. Row for row while they match the store's (a line the border
   * then splits is as xterm has it, part scrollback, part screen); after a reflow only whole lines
   * do, from the start of that row's line.
   */
  private giveBack(from: number) {
    const { first, rows, rowForRow } = this.broughtBack!;
    const top = first.line;
    let same = from;
    if (rowForRow) this.dropNewest(() => this.store.dropNewestRows(rows.length - same));
    else {
      let lines = 0;
      if (same < rows.length) {
        while (same > 0 && rows[same].wrapped) same--;
        lines = 1;
        for (let row = same + 1; row < rows.length; row++) if (!rows[row].wrapped) lines++;
      }
      this.dropNewest(() => this.store.dropNewestLines(lines));
    }
    // A line that began above the rows brought back is read from the terminal from its start,
    // found from the row above them: scrollback, which no erase of the screen has touched.
    this.placeBorder(!rowForRow && same === 0 && rows[0].wrapped ? this.lineStart(Math.max(0, top - 1)) : top + same);
    if (same > 0) this.broughtBack!.rows = rows.slice(0, same);
    else this.forgetBroughtBack();
  }

  /** The store lets go of its newest rows (`drop`), which are then no longer at any width. */
  private dropNewest(drop: () => void) {
    const before = this.store.rows;
    drop();
    this.rowsAtWidth = Math.max(0, this.rowsAtWidth - (before - this.store.rows));
  }

  /**
   * What the screen's top rows above the border take from the store: those rows when they match the
   * store's row for row, else the logical lines they show (in part for the first).
   */
  screenFromStore(): { rows: number } | { lines: number } {
    const buffer = this.term.buffer.normal;
    const border = this.firstUnarchived();
    const onScreen = Math.max(0, border - buffer.baseY);
    if (onScreen === 0 || this.broughtBack?.rowForRow) return { rows: onScreen };
    const noted = this.broughtBack?.rows ?? [];
    let lines = 0;
    for (let row = buffer.baseY; row < border; row++) {
      const note = noted[noted.length - (border - row)];
      if (row === buffer.baseY || !(note ? note.wrapped : buffer.getLine(row)?.isWrapped)) lines++;
    }
    return { lines };
  }

  private forgetBroughtBack() {
    this.broughtBack?.first.dispose();
    this.broughtBack = null;
  }

  /**
   * Rows already in the store keep the width they were printed at; the terminal reflows its own
   * (the normal buffer's behind the alternate screen too). Everything in its scrollback is moved
   * first, so no row can be pushed out unmoved. After a reflow the border is found again by the
   * cursor's line: as many logical lines above it as there were before (a reflow that also trims
   * moves followed rows and markers wrongly), the cursor's line itself found from the buffer's end
   * when narrowed (below); a logical line that crossed
   * the border (its first row continuing a row above it) is then the terminal's whole, the store
   * letting go of its first rows.
   */
  resize(cols: number, rows: number): void {
    // Narrowed to other rows: the rows first, as xterm does them, so that the reflow after finds
    // the cursor's line from the buffer's end with nothing below it added or dropped.
    if (cols < this.term.cols && rows !== this.term.rows) {
      this.resize(this.term.cols, rows);
      return this.resize(cols, rows);
    }
    this.reclaimDrawnOver();
    this.archive(0);
    this.restoreRowsAbove();
    const buffer = this.term.buffer.normal;
    // Rows brought back at and below the cursor's line are the terminal's before it resizes: with
    // fewer rows xterm drops every row below the cursor, and the border must not go with them.
    const cursor = buffer.baseY + buffer.cursorY;
    if (this.broughtBack && this.lineStart(cursor) < this.firstUnarchived()) this.giveBack(Math.max(0, this.lineStart(cursor) - this.broughtBack.first.line));
    const top = this.letGoOfTrimmedStart();
    const crossing = buffer.getLine(top)?.isWrapped === true;
    const reflow = cols !== this.term.cols;
    // Narrowed, xterm keeps the cursor on its screen row, not on its line, as lines below it take
    // more rows: its line is found from the buffer's end, where a reflow adds rows but no lines
    // (with rows above the screen xterm drops none).
    const fromEnd = cols < this.term.cols && buffer.baseY > 0;
    // Logical lines to walk back after the reflow: from the cursor's (or the buffer's last) to the border's.
    const linesBack = this.linesStarting(top + 1, fromEnd ? buffer.length : cursor + 1);
    const restore = roomForResize(this.term, cols, rows);
    this.term.resize(cols, rows);
    if (reflow) this.rowsAtWidth = 0;
    if (this.border) {
      // Without a reflow no row moves but by a trim, which the followed border takes.
      let row = this.lineStart(!reflow ? this.border.line : fromEnd ? buffer.length - 1 : buffer.baseY + buffer.cursorY);
      if (reflow) for (let n = 0; n < linesBack && row > 0; n++) row = this.lineStart(row - 1);
      // The line that crossed the border is the terminal's whole (one whose start xterm no longer
      // held crosses it at the terminal's first row: letGoOfTrimmedStart).
      if (crossing && !buffer.getLine(row)?.isWrapped) this.dropNewest(() => this.store.dropNewestLines(1));
      this.placeBorder(row);
    }
    this.forgetBroughtBack();
    // The rows the terminal's own scrollback no longer holds once it is put back go to the store first.
    this.archive(TERMINAL_SCROLLBACK);
    restore();
    this.noteBroughtBack();
  }

  /**
   * After a skimmed flood xterm's rows above the border are from before it, where a terminal that
   * parsed every byte has the flood's last rows: the store's newest. Before a resize reflows them or
   * brings some back onto the screen (where the program may draw over some and leave the others to
   * be the terminal's: reclaimDrawnOver), they are made the store's again, row for row, as many as
   * it holds laid out at this width, each laid out by a terminal of their own. Rows further up stay
   * as they are (they were reflowed since).
   */
  private restoreRowsAbove(): void {
    if (!this.staleAbove) return;
    this.staleAbove = false;
    const border = this.firstUnarchived();
    let wanted = Math.min(border, this.storedAtWidth);
    if (wanted === 0) return;
    const rows = this.store.rowsFromEnd((block) => {
      const taken = Math.min(wanted, block.length);
      wanted -= taken;
      return taken;
    });
    const layout = modernTerminal({ cols: this.term.cols, rows: rows.length, scrollback: 0 });
    writeSync(layout, rows.map(rowToSgr).join('\r\n'));
    const buffer = this.term.buffer.normal;
    rows.forEach((row, i) => replaceLine(buffer.getLine(border - rows.length + i)!, layout.buffer.normal.getLine(i)!, row.wrapped));
    layout.dispose();
  }

  /**
   * The border, moved to the terminal's first row when a line crossing it began before that row
   * (longer than the terminal keeps). The rows of it above the border are the store's newest as
   * well, row for row: each was moved there at this width, since a reflow either found the line's
   * start in the terminal (which then holds the line whole, from its start) or moved the border
   * here. The store lets go of them; else a reflow lays the terminal's part out from its first row
   * and that part is read twice: once from the store, once from the terminal.
   */
  private letGoOfTrimmedStart(): number {
    const buffer = this.term.buffer.normal;
    const top = this.firstUnarchived();
    const trimmedStart = top > 0 && buffer.getLine(top)?.isWrapped === true && this.lineStart(top) === 0 && buffer.getLine(0)?.isWrapped === true;
    if (!trimmedStart) return top;
    this.dropNewest(() => this.store.dropNewestRows(top));
    this.placeBorder(0);
    return 0;
  }

  /**
   * Notes the rows above the border a resize brought onto the screen, as they are now. While they
   * are among the store's newest rows laid out at this width, they match the store's row for row
   * (xterm moved them there, or restoreRowsAbove laid them out from it after a flood); else only
   * their lines match, as xterm wrapped them.
   */
  private noteBroughtBack() {
    const buffer = this.term.buffer.normal;
    const border = this.firstUnarchived();
    const count = border - buffer.baseY;
    if (count <= 0) return;
    const rows: Array<{ text: string; wrapped: boolean }> = [];
    for (let row = buffer.baseY; row < border; row++) {
      const line = buffer.getLine(row);
      rows.push({ text: line?.translateToString(true) ?? '', wrapped: line?.isWrapped ?? false });
    }
    this.broughtBack = { first: followRow(this.term, buffer.baseY), rows, rowForRow: count <= this.storedAtWidth };
  }

  /** How many logical lines start in rows `from` to `to` (not included) of the normal buffer. */
  private linesStarting(from: number, to: number): number {
    const buffer = this.term.buffer.normal;
    let lines = 0;
    for (let row = from; row < to; row++) if (!buffer.getLine(row)?.isWrapped) lines++;
    return lines;
  }

  /** The first row of the logical line `row` is on (row 0 when its start was trimmed). */
  private lineStart(row: number): number {
    const buffer = this.term.buffer.normal;
    while (row > 0 && buffer.getLine(row)?.isWrapped) row--;
    return row;
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
