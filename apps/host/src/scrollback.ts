import { RowPacker, unpackRows, unpackTexts, type CharWidth, type KeptLine, type KeptRow, type PaneCell, type Style } from '@paneflow/screen';
import { inflateRawSync } from 'node:zlib';
import { deflateInBackground } from './deflate';

/** Packed bytes of rows per block: one deflate and one inflate each, and the unit dropped at the limits. */
export const BLOCK_BYTES = 64 * 1024;

/** A row as read and search see it. */
type TextRow = Pick<KeptRow, 'text' | 'wrapped'>;

interface Block {
  /** The packed rows, deflated once `deflated` (until then as packed). */
  data: Uint8Array;
  deflated: boolean;
  rows: number;
  /** Rows that start a logical line (not a soft-wrapped continuation). */
  starts: number;
  /** Whether the block's first row continues the row before it. */
  firstWrapped: boolean;
  /** Still in the store: a deflate that finishes after its block was dropped is thrown away. */
  held: boolean;
}

/**
 * A session's deep scrollback: the rows that left the terminal's short tail, each as text with
 * its style runs (`@paneflow/screen`'s `RowPacker`), packed into an open block; once that holds
 * `blockBytes`, it is sealed and deflated on libuv's thread pool, off the thread that parses, and
 * inflated only when read. A sealed block waiting for its deflate is read as packed. Past
 * `maxRows` rows or `maxBytes` of sealed blocks the oldest block goes, and its rows are counted in
 * `droppedRows`.
 */
export class ScrollbackStore {
  private blocks: Block[] = [];
  private readonly open = new RowPacker();
  private blockBytes = 0;
  private sealedRows = 0;
  private sealedStarts = 0;
  private deflating = 0;
  droppedRows = 0;

  constructor(
    private readonly maxRows: number,
    private readonly maxBytes: number,
    /** The widths plain lines were measured with, to lay them out with when read. */
    private readonly width?: CharWidth,
    private readonly sealAt = BLOCK_BYTES,
  ) {}

  get rows(): number {
    return this.sealedRows + this.open.rows;
  }

  /** Bytes of sealed blocks held (deflated, or packed while their deflate runs). */
  get bytes(): number {
    return this.blockBytes;
  }

  /** Sealed blocks whose deflate has not finished. */
  get compressing(): number {
    return this.deflating;
  }

  /** Logical lines the store holds (a first row that continues a dropped one counts as one). */
  get lines(): number {
    const firstWrapped = this.blocks.length > 0 ? this.blocks[0].firstWrapped : this.open.rows > 0 && this.open.firstWrapped;
    return this.sealedStarts + this.open.starts + (firstWrapped ? 1 : 0);
  }

  /** Adds a terminal line, the next row after those added before (`cell`: scratch, `getNullCell()`). */
  addLine(line: KeptLine, cell: PaneCell): void {
    this.open.addLine(line, cell);
  }

  /** Adds a kept row, the next after those added before. */
  addRow(row: KeptRow): void {
    this.open.addRow(row);
  }

  /** Adds plain lines (`PlainLines`) as they came: `rows` rows of `lines` lines, laid out when read. */
  addPlain(text: string, from: number, to: number, style: Style, cols: number, rows: number, lines: number): void {
    this.open.addPlain(text, from, to, style, cols, rows, lines);
  }

  /** Ends a batch of adds: seals the open block once it is full, then applies the limits. */
  commit(): void {
    if (this.open.length >= this.sealAt) this.seal();
    this.trim();
  }

  private seal() {
    const { rows, starts, firstWrapped } = this.open;
    const block: Block = { data: this.open.take(), deflated: false, rows, starts, firstWrapped, held: true };
    this.blocks.push(block);
    this.blockBytes += block.data.length;
    this.sealedRows += rows;
    this.sealedStarts += starts;
    this.deflating++;
    deflateInBackground(block.data, (deflated) => {
      this.deflating--;
      if (!deflated || !block.held) return;
      this.blockBytes += deflated.length - block.data.length;
      block.data = deflated;
      block.deflated = true;
    });
  }

  private trim() {
    while (this.blocks.length > 0 && (this.rows - this.blocks[0].rows >= this.maxRows || this.blockBytes > this.maxBytes)) {
      const dropped = this.blocks.shift()!;
      dropped.held = false;
      this.sealedRows -= dropped.rows;
      this.blockBytes -= dropped.data.length;
      this.sealedStarts -= dropped.starts;
      this.droppedRows += dropped.rows;
    }
  }

  private packed(block: Block): Uint8Array {
    return block.deflated ? inflateRawSync(block.data) : block.data;
  }

  /** The sealed blocks and the open one, oldest first. */
  private all(): Block[] {
    if (this.open.rows === 0) return this.blocks;
    const { rows, starts, firstWrapped } = this.open;
    return [...this.blocks, { data: this.open.view(), deflated: false, rows, starts, firstWrapped, held: true }];
  }

  private rowsOf(block: Block): KeptRow[] {
    return unpackRows(this.packed(block), this.width);
  }

  private textsOf(block: Block): TextRow[] {
    return unpackTexts(this.packed(block), this.width);
  }

  /** Every kept row's text, oldest first, one block inflated at a time. */
  *allTexts(): Generator<TextRow> {
    for (const block of this.all()) yield* this.textsOf(block);
  }

  /**
   * The texts of the store's last rows, from a block boundary, enough to hold at least `starts` line starts
   * (or all of them); `complete` is false when rows before them are kept (the first line may be
   * a continuation of one that was not read).
   */
  tailTexts(starts: number): { rows: TextRow[]; complete: boolean } {
    const blocks = this.all();
    let found = 0;
    let from = blocks.length;
    while (from > 0 && found < starts) found += blocks[--from].starts;
    return { rows: blocks.slice(from).flatMap((block) => this.textsOf(block)), complete: from === 0 };
  }

  /**
   * The texts of the store's last rows, from a block boundary: blocks inflated from the newest back until
   * `enough` (given each block's rows, newest block first) says so; `complete` as for `tailTexts`.
   */
  textsFromEnd(enough: (rows: TextRow[]) => boolean): { rows: TextRow[]; complete: boolean } {
    const all = this.all();
    const blocks: TextRow[][] = [];
    let from = all.length;
    while (from > 0) {
      const rows = this.textsOf(all[--from]);
      blocks.unshift(rows);
      if (enough(rows)) break;
    }
    return { rows: blocks.flat(), complete: from === 0 };
  }

  /**
   * The newest rows, oldest first, one block at a time from the newest back: each block's rows
   * (newest block first) go to `take`, which returns how many of them, from the block's end, it
   * keeps; a block not kept whole is the last read.
   */
  rowsFromEnd(take: (rows: KeptRow[]) => number): KeptRow[] {
    const all = this.all();
    const kept: KeptRow[][] = [];
    for (let from = all.length; from > 0; ) {
      const rows = this.rowsOf(all[--from]);
      const count = Math.min(rows.length, Math.max(0, take(rows)));
      kept.unshift(rows.slice(rows.length - count));
      if (count < rows.length) break;
    }
    return kept.flat();
  }

  /** Lets go of the newest `rows` rows (rows the terminal holds again: DeepRows), not counted as dropped. */
  dropNewestRows(rows: number): void {
    this.dropNewest(() => --rows <= 0, rows > 0);
  }

  /** Lets go of the newest `lines` logical lines, their rows back to each one's first, not counted as dropped. */
  dropNewestLines(lines: number): void {
    this.dropNewest((row) => !row.wrapped && --lines <= 0, lines > 0);
  }

  /**
   * Drops rows from the newest back through the one `last` says is the last to go; the rows left of
   * the last block reached are packed again.
   */
  private dropNewest(last: (row: KeptRow) => boolean, any: boolean): void {
    let rest: KeptRow[] = [];
    for (let done = !any; !done; ) {
      let rows: KeptRow[];
      if (this.open.rows > 0) {
        rows = unpackRows(this.open.view(), this.width);
        this.open.take();
      } else if (this.blocks.length > 0) {
        const block = this.blocks.pop()!;
        block.held = false;
        this.blockBytes -= block.data.length;
        this.sealedRows -= block.rows;
        this.sealedStarts -= block.starts;
        rows = this.rowsOf(block);
      } else break;
      let end = rows.length;
      while (end > 0 && !done) done = last(rows[--end]);
      rest = rows.slice(0, end);
    }
    for (const row of rest) this.open.addRow(row);
  }

  /** Drops everything (a reset, or the program erased the scrollback); not counted as dropped. */
  clear(): void {
    for (const block of this.blocks) block.held = false;
    this.blocks = [];
    this.open.take();
    this.blockBytes = 0;
    this.sealedRows = 0;
    this.sealedStarts = 0;
  }
}
