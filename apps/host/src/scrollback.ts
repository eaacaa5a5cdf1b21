import { packRows, unpackRows, unpackTexts, type KeptRow } from '@paneflow/screen';
import { deflateRawSync, inflateRawSync } from 'node:zlib';

/** Fast deflate: rows arrive as fast as the terminal parses them. */
const DEFLATE_LEVEL = 1;

/** A row as read and search see it. */
type TextRow = Pick<KeptRow, 'text' | 'wrapped'>;

interface Block {
  data: Buffer;
  rows: number;
  /** Rows that start a logical line (not a soft-wrapped continuation). */
  starts: number;
  /** Whether the block's first row continues the row before it. */
  firstWrapped: boolean;
}

/**
 * A session's deep scrollback: the rows that left the terminal's short tail, each as text with
 * its style runs (`@paneflow/screen`'s `KeptRow`), packed and deflated as a block per batch moved
 * (a few hundred rows), inflated only when read. Nothing is held uncompressed between batches,
 * so the rows of a batch die young. Past `maxRows` rows or `maxBytes` of compressed blocks the
 * oldest block goes, and its rows are counted in `droppedRows`.
 */
export class ScrollbackStore {
  private blocks: Block[] = [];
  private blockBytes = 0;
  private keptRows = 0;
  private starts = 0;
  droppedRows = 0;

  constructor(
    private readonly maxRows: number,
    private readonly maxBytes: number,
  ) {}

  get rows(): number {
    return this.keptRows;
  }

  /** Compressed bytes held. */
  get bytes(): number {
    return this.blockBytes;
  }

  /** Logical lines the store holds (a first row that continues a dropped one counts as one). */
  get lines(): number {
    return this.starts + (this.blocks[0]?.firstWrapped ? 1 : 0);
  }

  /** Adds rows, oldest first, as one block. */
  append(rows: KeptRow[]): void {
    if (rows.length === 0) return;
    const starts = rows.reduce((sum, row) => sum + (row.wrapped ? 0 : 1), 0);
    const deflated = deflateRawSync(packRows(rows), { level: DEFLATE_LEVEL });
    // zlib's result sits in a 16 KiB chunk of its own: kept as it comes, a block of 1 KiB holds 16.
    const data = Buffer.allocUnsafeSlow(deflated.length);
    deflated.copy(data);
    this.blocks.push({ data, rows: rows.length, starts, firstWrapped: rows[0].wrapped });
    this.blockBytes += data.length;
    this.keptRows += rows.length;
    this.starts += starts;
    while (this.blocks.length > 1 && (this.keptRows - this.blocks[0].rows >= this.maxRows || this.blockBytes > this.maxBytes)) {
      const dropped = this.blocks.shift()!;
      this.keptRows -= dropped.rows;
      this.blockBytes -= dropped.data.length;
      this.starts -= dropped.starts;
      this.droppedRows += dropped.rows;
    }
  }

  private rowsOf(block: Block): KeptRow[] {
    return unpackRows(inflateRawSync(block.data).toString());
  }

  private textsOf(block: Block): TextRow[] {
    return unpackTexts(inflateRawSync(block.data).toString());
  }

  /** Every kept row's text, oldest first, one block inflated at a time. */
  *allTexts(): Generator<TextRow> {
    for (const block of this.blocks) yield* this.textsOf(block);
  }

  /**
   * The texts of the store's last rows, from a block boundary, enough to hold at least `starts` line starts
   * (or all of them); `complete` is false when rows before them are kept (the first line may be
   * a continuation of one that was not read).
   */
  tailTexts(starts: number): { rows: TextRow[]; complete: boolean } {
    let found = 0;
    let from = this.blocks.length;
    while (from > 0 && found < starts) found += this.blocks[--from].starts;
    return { rows: this.blocks.slice(from).flatMap((block) => this.textsOf(block)), complete: from === 0 };
  }

  /**
   * The texts of the store's last rows, from a block boundary: blocks inflated from the newest back until
   * `enough` (given each block's rows, newest block first) says so; `complete` as for `tailTexts`.
   */
  textsFromEnd(enough: (rows: TextRow[]) => boolean): { rows: TextRow[]; complete: boolean } {
    const blocks: TextRow[][] = [];
    let from = this.blocks.length;
    while (from > 0) {
      const rows = this.textsOf(this.blocks[--from]);
      blocks.unshift(rows);
      if (enough(rows)) break;
    }
    return { rows: blocks.flat(), complete: from === 0 };
  }

  /** The last `count` rows, oldest first. */
  lastRows(count: number): KeptRow[] {
    if (count <= 0) return [];
    let found = 0;
    let from = this.blocks.length;
    while (from > 0 && found < count) found += this.blocks[--from].rows;
    const rows = this.blocks.slice(from).flatMap((block) => this.rowsOf(block));
    return rows.slice(Math.max(0, rows.length - count));
  }

  /** Drops everything (a reset, or the program erased the scrollback); not counted as dropped. */
  clear(): void {
    this.blocks = [];
    this.blockBytes = 0;
    this.keptRows = 0;
    this.starts = 0;
  }
}
