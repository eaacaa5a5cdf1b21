import { charWidth } from './width';
import { DEFAULT_STYLE, type Color, type Style } from './style';

/** A rectangle of cells; x and y are 0-based columns and rows. */
export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** One cell as a plain object, for reading (`Grid.cell`). */
export interface Cell {
  /** The base character and its combining marks; '' for a blank cell and for a wide char's right half. */
  chars: string;
  /** 1, 2 for a wide character, 0 for the cell right of a wide character. */
  width: 0 | 1 | 2;
  fg: Color;
  bg: Color;
  attrs: number;
}

// A cell's content word: code point (bits 0-20), HAS_CLUSTER (bit 21), width (bits 22-23), Attr
// bits (24-31). Colours have arrays of their own, so comparing a cell is three loads.
/** Set in a content word when `Grid.clusters` holds the cell's full text (base plus marks). */
export const HAS_CLUSTER = 1 << 21;
const CODE_POINT = 0x1fffff;

/** The content word of a cell. */
export function contentWord(codePoint: number, hasCluster: boolean, width: number, attrs: number): number {
  return ((codePoint & CODE_POINT) | (hasCluster ? HAS_CLUSTER : 0) | (width << 22) | (attrs << 24)) >>> 0;
}
export const codePointOf = (word: number): number => word & CODE_POINT;
export const widthOf = (word: number): 0 | 1 | 2 => ((word >>> 22) & 3) as 0 | 1 | 2;
export const attrsOf = (word: number): number => word >>> 24;

/**
 * The cells of a whole terminal, in typed arrays indexed `y * cols + x` because a frame is rebuilt
 * on every draw. A wide character is always a pair: width 2 at x, a width-0 placeholder with the
 * same style at x + 1. Every write keeps pairs whole, as a terminal does: writing over either half
 * of a wide character blanks the other half.
 */
export class Grid {
  readonly cols: number;
  readonly rows: number;
  /** Content words (`contentWord`): code point (0 for blank), marks flag, width, attributes. */
  readonly words: Uint32Array;
  readonly fgs: Uint32Array;
  readonly bgs: Uint32Array;
  /** The full text of cells with combining marks, by cell index. */
  readonly clusters = new Map<number, string>();

  constructor(cols: number, rows: number) {
    if (!Number.isInteger(cols) || !Number.isInteger(rows) || cols < 1 || rows < 1) throw new RangeError(`grid size ${cols}x${rows} is not positive`);
    this.cols = cols;
    this.rows = rows;
    const size = cols * rows;
    this.words = new Uint32Array(size).fill(contentWord(0, false, 1, 0));
    this.fgs = new Uint32Array(size);
    this.bgs = new Uint32Array(size);
  }

  /** Every cell blank in `style`. */
  clear(style: Style = DEFAULT_STYLE): void {
    this.words.fill(contentWord(0, false, 1, style.attrs));
    this.fgs.fill(style.fg);
    this.bgs.fill(style.bg);
    this.clusters.clear();
  }

  /** Fills the part of `rect` inside the grid with `codePoint` (blank by default) in `style`. */
  fill(rect: Rect, style: Style, codePoint = 0): void {
    const left = Math.max(0, rect.x);
    const top = Math.max(0, rect.y);
    const right = Math.min(this.cols, rect.x + rect.width);
    const bottom = Math.min(this.rows, rect.y + rect.height);
    for (let y = top; y < bottom; y++) {
      for (let x = left; x < right; x++) this.put(x, y, codePoint, null, 1, style.fg, style.bg, style.attrs);
    }
  }

  /**
   * Writes one character cell: `chars` is a base character and the zero-width marks after it
   * (anything else after the base is ignored; strings go through `writeText`). `width` defaults
   * to the base's display width (at least 1). Outside the grid nothing happens.
   */
  setCell(x: number, y: number, chars: string, style: Style, width: 1 | 2 = charWidth(chars.codePointAt(0) ?? 0) === 2 ? 2 : 1): void {
    if (x < 0 || y < 0 || x >= this.cols || y >= this.rows) return;
    const codePoint = chars.codePointAt(0) ?? 0;
    let end = codePoint > 0xffff ? 2 : 1;
    const baseEnd = end;
    while (end < chars.length) {
      const mark = chars.codePointAt(end)!;
      if (charWidth(mark) !== 0) break;
      end += mark > 0xffff ? 2 : 1;
    }
    this.put(x, y, codePoint, end > baseEnd ? chars.slice(0, end) : null, width, style.fg, style.bg, style.attrs);
  }

  /**
   * The raw write behind every other, for callers that loop over many cells (in bounds only):
   * `cluster` is the cell's full text when it has marks, else null. A wide character in the last
   * column does not fit and becomes a blank in its style.
   */
  put(x: number, y: number, codePoint: number, cluster: string | null, width: 1 | 2, fg: Color, bg: Color, attrs: number): void {
    const i = y * this.cols + x;
    const { words } = this;
    const shownWidth = widthOf(words[i]);
    if (shownWidth === 0 && x > 0) this.blank(i - 1);
    if (width === 2 && x === this.cols - 1) {
      codePoint = 0;
      cluster = null;
      width = 1;
    }
    if (width === 2) {
      const right = i + 1;
      if (widthOf(words[right]) === 2) this.blank(right + 1);
      this.store(right, contentWord(0, false, 0, attrs), null, fg, bg);
    } else if (shownWidth === 2) {
      this.blank(i + 1);
    }
    this.store(i, contentWord(codePoint, cluster !== null, width, attrs), cluster, fg, bg);
  }

  /** Makes this grid a copy of `source`, which must have the same size. */
  copyFrom(source: Grid): void {
    if (source.cols !== this.cols || source.rows !== this.rows) throw new RangeError('grids differ in size');
    this.words.set(source.words);
    this.fgs.set(source.fgs);
    this.bgs.set(source.bgs);
    this.clusters.clear();
    for (const [index, text] of source.clusters) this.clusters.set(index, text);
  }

  /** The characters of a cell: '' for a blank cell and for a wide character's right half. */
  chars(x: number, y: number): string {
    const i = y * this.cols + x;
    const word = this.words[i];
    if (word & HAS_CLUSTER) return this.clusters.get(i)!;
    const codePoint = codePointOf(word);
    return codePoint === 0 ? '' : String.fromCodePoint(codePoint);
  }

  cell(x: number, y: number): Cell {
    const i = y * this.cols + x;
    const word = this.words[i];
    return { chars: this.chars(x, y), width: widthOf(word), fg: this.fgs[i], bg: this.bgs[i], attrs: attrsOf(word) };
  }

  /** Turns a cell into a blank of its own style (what a terminal leaves of a broken wide pair). */
  private blank(i: number): void {
    this.store(i, contentWord(0, false, 1, attrsOf(this.words[i])), null, this.fgs[i], this.bgs[i]);
  }

  private store(i: number, word: number, cluster: string | null, fg: Color, bg: Color): void {
    if (this.words[i] & HAS_CLUSTER) this.clusters.delete(i);
    if (cluster !== null) this.clusters.set(i, cluster);
    this.words[i] = word;
    this.fgs[i] = fg;
    this.bgs[i] = bg;
  }
}
