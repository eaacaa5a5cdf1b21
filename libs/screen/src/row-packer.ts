import { attrsOfCell, bgOf, fgOf, type PaneCell } from './pane';
import { keepRow, type KeptLine, type KeptRow } from './rows';
import { RunBuilder } from './runs';
import { DEFAULT_COLOR, type Style } from './style';
import { CONTENT_CODE_POINT, CONTENT_IS_COMBINED, CONTENT_WIDTH_SHIFT, lineWords } from './xterm-internals';

// How kept rows are packed into a store's block of bytes (the format is RowPacker's comment;
// row-unpack.ts reads it back): from xterm.js's cell words where a line has them, so a row costs
// no string and no cell object per cell.

const HAS_CONTENT = CONTENT_CODE_POINT | CONTENT_IS_COMBINED;
/** Ends a row's text in a packed block: a byte UTF-8 never holds. */
export const TEXT_END = 0xff;
/** Begins plain lines packed as they came, in place of a row: another byte UTF-8 never holds. */
export const PLAIN = 0xfe;

interface Utf8Encoder {
  encodeInto(source: string, destination: Uint8Array): { written: number };
}
const encoder = new (globalThis as unknown as { TextEncoder: new () => Utf8Encoder }).TextEncoder();

/**
 * Packs rows into one block of bytes (a store's block), as `keepRow` keeps them: per row its text
 * in UTF-8, a 0xFF byte, then unsigned LEB128 numbers — the run count times 2 plus 1 when the row
 * continues the one above, and each run's length (UTF-16 code units), fg, bg and attributes.
 * A code point UTF-8 cannot carry (a lone surrogate) is packed as U+FFFD.
 *
 * Plain lines (`PlainLines`) can be packed as they came instead, to be laid out into rows when
 * read: 0xFE, then LEB128 numbers — the columns, the fg, bg and attributes they begin in, their
 * row count — then their length in UTF-8 bytes as four bytes, little-endian, and the bytes.
 */
export class RowPacker {
  private buffer = new Uint8Array(16 * 1024);
  private used = 0;
  private readonly runs: number[] = [];
  private readonly runBuilder = new RunBuilder();
  /** Eight styles decided from cell words, five numbers each (see `styleOf`); starts as the default style. */
  private readonly styles = new Float64Array(8 * 5);
  private nextStyle = 5;
  /** Rows packed since the last `take`. */
  rows = 0;
  /** Of them, rows that start a logical line (not a soft-wrapped continuation). */
  starts = 0;
  /** Whether the first row packed since the last `take` continues the row before it. */
  firstWrapped = false;

  /** Bytes packed since the last `take`. */
  get length(): number {
    return this.used;
  }

  /**
   * Packs a buffer line, with `cell` as scratch (`buffer.getNullCell()`): the same row `keepRow`
   * gives, read from the line's cell words when xterm.js exposes them (the style only where it
   * changes), else through `keepRow`.
   */
  addLine(line: KeptLine, cell: PaneCell): void {
    const words = lineWords(line);
    if (!words) {
      this.addRow(keepRow(line, cell));
      return;
    }
    const { data, combined } = words;
    // translateToString(true): up to the last cell with content, plus its width.
    let end = 0;
    for (let x = words.length - 1; x >= 0; x--) {
      const content = data[3 * x];
      if (content & HAS_CONTENT) {
        end = Math.min(words.length, x + (content >> CONTENT_WIDTH_SHIFT));
        break;
      }
    }
    const runs = this.runBuilder;
    runs.reset(this.runs);
    this.reserve(end * 4);
    let at = 0;
    // The words of the style last decided; xterm's default style is 0 and 0.
    let lastFg = 0;
    let lastBg = 0;
    for (let x = 0; x < end; ) {
      const content = data[3 * x];
      const fgWord = data[3 * x + 1];
      const bgWord = data[3 * x + 2];
      if (fgWord !== lastFg || bgWord !== lastBg) {
        lastFg = fgWord;
        lastBg = bgWord;
        const style = this.styleOf(line, x, cell, fgWord, bgWord);
        runs.style(at, this.styles[style + 2], this.styles[style + 3], this.styles[style + 4]);
      }
      if (content & CONTENT_IS_COMBINED) {
        const chars = combined[x] ?? '';
        this.reserve(chars.length * 3);
        this.putString(chars);
        at += chars.length;
      } else {
        const codePoint = content & CONTENT_CODE_POINT;
        if (codePoint === 0) this.buffer[this.used++] = 0x20;
        else this.putCodePoint(codePoint);
        at += codePoint > 0xffff ? 2 : 1;
      }
      x += content >> CONTENT_WIDTH_SHIFT || 1;
    }
    runs.end(at);
    this.endRow(line.isWrapped);
  }

  /** Packs a kept row. */
  addRow(row: KeptRow): void {
    this.reserve(row.text.length * 3);
    this.putString(row.text);
    this.runs.length = 0;
    this.runs.push(...row.runs);
    this.endRow(row.wrapped);
  }

  /**
   * Packs the plain lines of `text` from `from` to `to` as they came: `rows` rows of `lines`
   * lines, laid out at `cols` columns from `style` when read.
   */
  addPlain(text: string, from: number, to: number, style: Style, cols: number, rows: number, lines: number): void {
    this.reserve(24 + (to - from) * 3);
    this.buffer[this.used++] = PLAIN;
    this.putNumber(cols);
    this.putNumber(style.fg);
    this.putNumber(style.bg);
    this.putNumber(style.attrs);
    this.putNumber(rows);
    const length = this.used;
    this.used += 4;
    const { written } = encoder.encodeInto(text.slice(from, to), this.buffer.subarray(this.used));
    for (let i = 0; i < 4; i++) this.buffer[length + i] = (written >>> (8 * i)) & 0xff;
    this.used += written;
    if (this.rows === 0) this.firstWrapped = false;
    this.rows += rows;
    this.starts += lines;
  }

  /** The bytes packed so far, as a view that the next add may overwrite. */
  view(): Uint8Array {
    return this.buffer.subarray(0, this.used);
  }

  /** The bytes packed so far, in an array of their own size; the packer starts afresh. */
  take(): Uint8Array {
    const block = this.buffer.slice(0, this.used);
    this.used = 0;
    this.rows = 0;
    this.starts = 0;
    this.firstWrapped = false;
    return block;
  }

  /**
   * Where in `styles` the style of the cell at `x` is: the last few words decided are kept
   * (fg word, bg word, fg, bg, attributes), since a program's rows reuse a handful of styles;
   * another is read through the cell's public methods.
   */
  private styleOf(line: KeptLine, x: number, cell: PaneCell, fgWord: number, bgWord: number): number {
    const styles = this.styles;
    for (let at = 0; at < styles.length; at += 5) if (styles[at] === fgWord && styles[at + 1] === bgWord) return at;
    line.getCell(x, cell);
    const plain = cell.isAttributeDefault();
    const at = this.nextStyle;
    this.nextStyle = (at + 5) % styles.length;
    styles[at] = fgWord;
    styles[at + 1] = bgWord;
    styles[at + 2] = plain ? DEFAULT_COLOR : fgOf(cell);
    styles[at + 3] = plain ? DEFAULT_COLOR : bgOf(cell);
    styles[at + 4] = plain ? 0 : attrsOfCell(cell);
    return at;
  }

  private endRow(wrapped: boolean) {
    const runs = this.runs;
    this.reserve(6 + runs.length * 5);
    this.buffer[this.used++] = TEXT_END;
    this.putNumber(runs.length * 2 + (wrapped ? 1 : 0));
    for (let i = 0; i < runs.length; i++) this.putNumber(runs[i]);
    if (this.rows === 0) this.firstWrapped = wrapped;
    this.rows++;
    if (!wrapped) this.starts++;
  }

  private reserve(bytes: number) {
    if (this.used + bytes <= this.buffer.length) return;
    const grown = new Uint8Array(Math.max(this.buffer.length * 2, this.used + bytes));
    grown.set(this.view());
    this.buffer = grown;
  }

  private putNumber(value: number) {
    while (value > 0x7f) {
      this.buffer[this.used++] = (value & 0x7f) | 0x80;
      value = Math.floor(value / 128);
    }
    this.buffer[this.used++] = value;
  }

  private putString(text: string) {
    for (let i = 0; i < text.length; i++) {
      let unit = text.charCodeAt(i);
      if (unit >= 0xd800 && unit < 0xdc00 && i + 1 < text.length) {
        const low = text.charCodeAt(i + 1);
        if (low >= 0xdc00 && low < 0xe000) {
          unit = 0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00);
          i++;
        }
      }
      this.putCodePoint(unit);
    }
  }

  private putCodePoint(codePoint: number) {
    const out = this.buffer;
    if (codePoint < 0x80) out[this.used++] = codePoint;
    else if (codePoint < 0x800) {
      out[this.used++] = 0xc0 | (codePoint >> 6);
      out[this.used++] = 0x80 | (codePoint & 0x3f);
    } else if (codePoint < 0x10000) {
      if (codePoint >= 0xd800 && codePoint < 0xe000) codePoint = 0xfffd;
      out[this.used++] = 0xe0 | (codePoint >> 12);
      out[this.used++] = 0x80 | ((codePoint >> 6) & 0x3f);
      out[this.used++] = 0x80 | (codePoint & 0x3f);
    } else {
      out[this.used++] = 0xf0 | (codePoint >> 18);
      out[this.used++] = 0x80 | ((codePoint >> 12) & 0x3f);
      out[this.used++] = 0x80 | ((codePoint >> 6) & 0x3f);
      out[this.used++] = 0x80 | (codePoint & 0x3f);
    }
  }
}
