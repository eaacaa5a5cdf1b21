import { attrsOfCell, bgOf, fgOf, type PaneCell, type PaneLine } from './pane';
import { ATTRIBUTE_CODES, colorParams } from './render';
import { PlainLines, type CharWidth } from './plain-lines';
import { RunBuilder } from './runs';
import { DEFAULT_COLOR, type Style } from './style';

/**
 * A terminal row kept outside the terminal (a deep scrollback): its text as xterm.js's
 * `translateToString(true)` gives it, the style of that text as runs, and whether it continues
 * the row above it (a soft wrap).
 */
export interface KeptRow {
  text: string;
  /**
   * Style runs over `text`, flat: `[length, fg, bg, attrs, …]` with `length` in UTF-16 code units,
   * covering the whole text; empty when the whole row is in the default style.
   */
  runs: number[];
  wrapped: boolean;
}

/** A line of an xterm.js buffer (`IBufferLine`): cells, its text, and whether it is a soft-wrapped continuation. */
export interface KeptLine extends PaneLine {
  readonly isWrapped: boolean;
  translateToString(trimRight: boolean): string;
}

/**
 * What an xterm.js cell object holds besides its methods (`CellData`): read when present, as a
 * fast path only — two cells with the same `fg` and `bg` words have the same style, and `content`
 * tells a cell's length in code units without building its string. Without them the public
 * methods decide.
 */
interface CellWords {
  content?: number;
  fg?: number;
  bg?: number;
}
const IS_COMBINED = 0x200000;
const CODE_POINT = 0x1fffff;

/** Code units the cell adds to `translateToString`'s text. */
function unitsOf(cell: PaneCell): number {
  const content = (cell as CellWords).content;
  if (typeof content === 'number' && (content & IS_COMBINED) === 0) return (content & CODE_POINT) > 0xffff ? 2 : 1;
  return cell.getChars().length || 1;
}

/**
 * Reads one buffer line into a `KeptRow`, with `cell` as scratch (`buffer.getNullCell()`). The
 * text is `translateToString(true)`'s: blank cells after the last character left out (and a
 * background painted over them), a blank cell between characters a space. The runs walk the
 * cells that text was made of.
 */
export function keepRow(line: KeptLine, cell: PaneCell): KeptRow {
  const text = line.translateToString(true);
  const runs = new RunBuilder();
  runs.reset([]);
  let at = 0;
  // The words of the style last decided; xterm's default style is 0 and 0.
  let lastFg: number | undefined = 0;
  let lastBg: number | undefined = 0;
  for (let x = 0; at < text.length && x < line.length; ) {
    line.getCell(x, cell);
    const words = cell as CellWords;
    if (words.fg === undefined || words.fg !== lastFg || words.bg !== lastBg) {
      lastFg = words.fg;
      lastBg = words.bg;
      const plain = cell.isAttributeDefault();
      runs.style(at, plain ? DEFAULT_COLOR : fgOf(cell), plain ? DEFAULT_COLOR : bgOf(cell), plain ? 0 : attrsOfCell(cell));
    }
    at += unitsOf(cell);
    x += cell.getWidth() || 1;
  }
  runs.end(text.length);
  return { text, runs: runs.runs, wrapped: line.isWrapped };
}

// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

function sgrOf(fg: number, bg: number, attrs: number): string {
  let params = '0';
  for (const [bit, set] of ATTRIBUTE_CODES) if (attrs & bit) params += `;${set}`;
  if (fg !== DEFAULT_COLOR) params += `;${colorParams(fg, true)}`;
  if (bg !== DEFAULT_COLOR) params += `;${colorParams(bg, false)}`;
  return `\x1b[${params}m`;
}

/**
 * The row as a terminal redraws it: its text with the SGR of each run, back to the default style
 * at the end, no newline. A control character (none comes from a terminal's cells) becomes U+FFFD.
 */
export function rowToSgr(row: KeptRow): string {
  const text = row.text.replace(CONTROL, '\ufffd');
  if (row.runs.length === 0) return text;
  let out = '';
  let at = 0;
  for (let i = 0; i + 3 < row.runs.length; i += 4) {
    const length = row.runs[i];
    out += sgrOf(row.runs[i + 1], row.runs[i + 2], row.runs[i + 3]) + text.slice(at, at + length);
    at += length;
  }
  return `${out}\x1b[0m`;
}

/**
 * What an xterm.js `BufferLineApiView` wraps (its `BufferLine`): the cell words, three per cell
 * (content, fg, bg), and the strings of combined cells. Read when present, as a fast path only:
 * a row is packed from them without building its text as a string or a cell object per cell.
 */
interface LineWords {
  _line?: { readonly length: number; _data?: Uint32Array; _combined?: Record<number, string> };
}
const HAS_CONTENT = CODE_POINT | IS_COMBINED;
const WIDTH_SHIFT = 22;
/** Ends a row's text in a packed block: a byte UTF-8 never holds. */
const TEXT_END = 0xff;
/** Begins plain lines packed as they came, in place of a row: another byte UTF-8 never holds. */
const PLAIN = 0xfe;

interface Utf8Decoder {
  decode(input: Uint8Array): string;
}
interface Utf8Encoder {
  encodeInto(source: string, destination: Uint8Array): { written: number };
}
const platform = globalThis as unknown as {
  TextDecoder: new (label: 'utf-8', options: { ignoreBOM: boolean }) => Utf8Decoder;
  TextEncoder: new () => Utf8Encoder;
};
const encoder = new platform.TextEncoder();

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
    const words = (line as LineWords)._line;
    const data = words?._data;
    const combined = words?._combined;
    if (!data || !combined) {
      this.addRow(keepRow(line, cell));
      return;
    }
    // translateToString(true): up to the last cell with content, plus its width.
    let end = 0;
    for (let x = words.length - 1; x >= 0; x--) {
      const content = data[3 * x];
      if (content & HAS_CONTENT) {
        end = Math.min(words.length, x + (content >> WIDTH_SHIFT));
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
      if (content & IS_COMBINED) {
        const chars = combined[x] ?? '';
        this.reserve(chars.length * 3);
        this.putString(chars);
        at += chars.length;
      } else {
        const codePoint = content & CODE_POINT;
        if (codePoint === 0) this.buffer[this.used++] = 0x20;
        else this.putCodePoint(codePoint);
        at += codePoint > 0xffff ? 2 : 1;
      }
      x += content >> WIDTH_SHIFT || 1;
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

// ignoreBOM: a row may begin with U+FEFF, which is text like any other.
const decoder = new platform.TextDecoder('utf-8', { ignoreBOM: true });

/**
 * Reads a block `RowPacker` wrote, row by row; `withRuns` false skips the runs (what a search
 * needs). Plain lines are laid out with `width`, the widths they were measured with.
 */
function unpack<T>(block: Uint8Array, withRuns: boolean, width: CharWidth | undefined, make: (text: string, runs: number[], wrapped: boolean) => T): T[] {
  const rows: T[] = [];
  let at = 0;
  const number = (index: number) => {
    let value = 0;
    for (let scale = 1; ; scale *= 128) {
      if (at >= block.length) throw new TypeError(`packed row ${index} ends inside a number`);
      const byte = block[at++];
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
    }
  };
  const plainLines = (index: number) => {
    at++;
    const cols = number(index);
    const style: Style = { fg: number(index), bg: number(index), attrs: number(index) };
    const count = number(index);
    if (at + 4 > block.length) throw new TypeError(`packed plain lines at row ${index} end inside their length`);
    const length = (block[at] | (block[at + 1] << 8) | (block[at + 2] << 16) | (block[at + 3] << 24)) >>> 0;
    at += 4;
    if (at + length > block.length) throw new TypeError(`packed plain lines at row ${index} end early`);
    if (!width) throw new TypeError(`packed plain lines at row ${index}, and no widths to lay them out with`);
    const text = decoder.decode(block.subarray(at, at + length));
    at += length;
    new PlainLines(cols, width).layout(text, 0, text.length, style, (text, runs, wrapped) => rows.push(make(text, runs, wrapped)), withRuns);
    const laid = rows.length - index;
    if (laid !== count) throw new TypeError(`packed plain lines at row ${index} lay out as ${laid} rows, not ${count}`);
  };
  while (at < block.length) {
    const index = rows.length;
    if (block[at] === PLAIN) {
      plainLines(index);
      continue;
    }
    const end = block.indexOf(TEXT_END, at);
    if (end === -1) throw new TypeError(`packed row ${index} has no end to its text`);
    const text = decoder.decode(block.subarray(at, end));
    at = end + 1;
    const head = number(index);
    const count = head >> 1;
    if (count % 4 !== 0) throw new TypeError(`packed row ${index} has ${count} run numbers, not fours`);
    const runs: number[] = [];
    let covered = 0;
    for (let i = 0; i < count; i++) {
      const value = number(index);
      if (!withRuns) continue;
      runs.push(value);
      if (i % 4 === 0) covered += value;
    }
    if (withRuns && count > 0 && covered !== text.length) throw new TypeError(`packed row ${index}: its runs cover ${covered} of ${text.length} code units`);
    rows.push(make(text, runs, (head & 1) === 1));
  }
  return rows;
}

/** The rows `RowPacker` packed (plain lines laid out with `width`); throws a `TypeError` on anything else. */
export function unpackRows(block: Uint8Array, width?: CharWidth): KeptRow[] {
  return unpack(block, true, width, (text, runs, wrapped) => ({ text, runs, wrapped }));
}

/** Only the texts and wraps of the rows `RowPacker` packed (their runs skipped): what a search needs. */
export function unpackTexts(block: Uint8Array, width?: CharWidth): Array<Pick<KeptRow, 'text' | 'wrapped'>> {
  return unpack(block, false, width, (text, _runs, wrapped) => ({ text, wrapped }));
}

/** Rows joined into logical lines: a wrapped row continues the line before it. */
export function joinRows(rows: Iterable<Pick<KeptRow, 'text' | 'wrapped'>>, into: string[] = []): string[] {
  let first = into.length === 0;
  for (const row of rows) {
    if (row.wrapped && !first) into[into.length - 1] += row.text;
    else into.push(row.text);
    first = false;
  }
  return into;
}
