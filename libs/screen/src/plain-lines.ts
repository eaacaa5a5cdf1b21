import { ATTRIBUTE_CODES } from './render';
import { RunBuilder } from './runs';
import { COLOR_PALETTE, COLOR_RGB, DEFAULT_COLOR, type Style } from './style';

/** A character's columns as the terminal measures them (xterm.js's active Unicode version). */
export type CharWidth = (codePoint: number) => number;
/** Takes each row laid out: its text, its style runs (as `KeptRow.runs`), whether it continues the row above. */
export type RowSink = (text: string, runs: number[], wrapped: boolean) => void;

const ESC = 0x1b;
const CR = 0x0d;
const LF = 0x0a;
const SOFT_HYPHEN = 0xad;
/** What `measure` returns for a line that is not plain. */
export const NOT_PLAIN = -1;
/** What `measure` returns for a line that is plain as far as the text goes, and not ended. */
export const UNFINISHED = -2;
/** Params xterm.js takes in one sequence; more and its parser drops the rest. */
const MAX_PARAMS = 32;
/** What the colour forms of SGR 38 and 48 take after the number: `5;n` or `2;r;g;b`. */
const COLOR_PARAMS: Record<number, number> = { 5: 1, 2: 3 };
/**
 * SGR numbers whose effect a kept row has no place for (double underline, overline, underline
 * colour): lines with them are left to the terminal, which keeps them while the rows are its own.
 */
const NOT_KEPT = new Set([21, 53, 55, 58, 59]);

/** The attribute bits each SGR number sets, and those it clears (22 both bold and dim). */
const SET: Record<number, number> = {};
const CLEAR: Record<number, number> = {};
for (const [bit, on, off] of ATTRIBUTE_CODES) {
  SET[Number(on)] = bit;
  CLEAR[Number(off)] = (CLEAR[Number(off)] ?? 0) | bit;
}

/**
 * Plain lines: printable characters and SGR sequences, each line ended by CR LF. A terminal lays
 * them out with nothing to decide: printed from the first column of an empty row at the bottom of
 * a full-screen scroll region, with autowrap on and insert mode off, each line fills its rows
 * (wrapping where a character does not fit) and scrolls up. So the rows a flood of them leaves in
 * the scrollback can be made here, without a terminal's parser, exactly as `keepRow` reads them
 * from xterm.js's lines for the same output (the tests compare the two).
 *
 * Not plain, and left to the terminal: any other control or escape sequence, a character of
 * width 0 (it would join the one before), U+00AD (xterm.js drops it), a lone surrogate, an SGR
 * with sub-parameters, a colour form it does not spell out, or a style a kept row does not keep
 * (`NOT_KEPT`), and a line not ended yet.
 */
export class PlainLines {
  /** Rows of the line `measure` read last. */
  rows = 0;
  private readonly runs = new RunBuilder();

  constructor(
    /** The terminal's width in columns. */
    public cols: number,
    private readonly width: CharWidth,
  ) {}

  /**
   * The end of the plain line at `from` (after its LF), its rows in `rows`; `NOT_PLAIN` when the
   * line there is not plain, `UNFINISHED` when the text ends before the line does.
   */
  measure(text: string, from: number): number {
    const cols = this.cols;
    let x = 0;
    let rows = 1;
    const length = text.length;
    for (let i = from; i < length; ) {
      let unit = text.charCodeAt(i);
      if (unit >= 0x20 && unit < 0x7f) {
        // A run of printable ASCII, a column each: the rows it fills, counted at once.
        const start = i;
        do unit = text.charCodeAt(++i);
        while (unit >= 0x20 && unit < 0x7f);
        x += i - start;
        if (x > cols) {
          const wraps = Math.ceil(x / cols) - 1;
          rows += wraps;
          x -= wraps * cols;
        }
        continue;
      }
      if (unit === ESC) {
        i = sgrEnd(text, i);
        if (i < 0) return i;
        continue;
      }
      if (unit === CR) {
        while (text.charCodeAt(++i) === CR);
        if (i >= text.length) return UNFINISHED;
        if (text.charCodeAt(i) !== LF) return NOT_PLAIN;
        this.rows = rows;
        return i + 1;
      }
      const codePoint = text.codePointAt(i)!;
      const width = this.printable(codePoint, unit);
      if (width === 0) return NOT_PLAIN;
      if (x + width > cols) {
        rows++;
        x = 0;
      }
      x += width;
      i += codePoint > 0xffff ? 2 : 1;
    }
    return UNFINISHED;
  }

  /**
   * Lays out the plain lines from `from` to `to` (a line end `measure` found), row by row into
   * `out`, in `style` as the line begins; `style` ends as the last SGR left it. Without `withRuns`
   * the rows' runs are left empty and the style unread (what a search needs).
   */
  layout(text: string, from: number, to: number, style: Style, out: RowSink, withRuns = true): void {
    const cols = this.cols;
    const runs = this.runs;
    const noRuns: number[] = [];
    let row = '';
    let rowRuns = withRuns ? [] : noRuns;
    runs.reset(rowRuns);
    let x = 0;
    let wrapped = false;
    /** Where the characters not yet added to `row` begin in `text`. */
    let pending = from;
    /** The style changed (or a row began) since a character was last laid out. */
    let restyled = true;
    const endRow = (at: number, nextWrapped: boolean) => {
      row += text.slice(pending, at);
      if (withRuns) {
        runs.end(row.length);
        out(row, rowRuns, wrapped);
        rowRuns = [];
        runs.reset(rowRuns);
        restyled = true;
      } else out(row, noRuns, wrapped);
      row = '';
      x = 0;
      wrapped = nextWrapped;
      pending = at;
    };
    for (let i = from; i < to; ) {
      const unit = text.charCodeAt(i);
      if (unit === ESC) {
        // A plain SGR (measured): it ends at its `m`.
        const end = text.indexOf('m', i + 2) + 1;
        row += text.slice(pending, i);
        if (withRuns) {
          applySgr(text, i + 2, end - 1, style);
          restyled = true;
        }
        pending = i = end;
        continue;
      }
      if (unit === CR) {
        endRow(i, false);
        while (text.charCodeAt(++i) === CR);
        pending = ++i;
        continue;
      }
      const astral = unit >= 0xd800 && unit < 0xdc00;
      const width = unit >= 0x20 && unit < 0x7f ? 1 : this.width(astral ? text.codePointAt(i)! : unit);
      if (x + width > cols) endRow(i, true);
      if (restyled) {
        runs.style(row.length + i - pending, style.fg, style.bg, style.attrs);
        restyled = false;
      }
      x += width;
      i += astral ? 2 : 1;
    }
  }

  /** The columns of a non-ASCII character if it is plain, else 0. */
  private printable(codePoint: number, unit: number): number {
    if (unit < 0xa0 || codePoint === SOFT_HYPHEN) return 0;
    if (unit >= 0xd800 && unit < 0xe000 && codePoint <= 0xffff) return 0; // a lone surrogate
    const width = this.width(codePoint);
    return width === 1 || width === 2 ? width : 0;
  }
}

/**
 * The SGR sequences of the plain lines from `from` to `to` that bring a terminal from the style
 * they begin in to the one they end in: those from the last that resets (its first param 0 or
 * empty) on, or all of them when none does.
 */
export function sgrToReplay(text: string, from: number, to: number): string {
  const sequences: string[] = [];
  for (let at = text.lastIndexOf('\x1b', to - 1); at >= from; at = at > from ? text.lastIndexOf('\x1b', at - 1) : -1) {
    const end = text.indexOf('m', at) + 1;
    sequences.push(text.slice(at, end));
    if (resets(text, at + 2)) break;
  }
  return sequences.reverse().join('');
}

/** Whether the first param of the SGR whose params begin at `at` is 0 (or empty). */
function resets(text: string, at: number): boolean {
  for (let i = at; ; i++) {
    const unit = text.charCodeAt(i);
    if (unit === 0x3b || unit === 0x6d) return true;
    if (unit !== 0x30) return false;
  }
}

/** The end of the plain SGR sequence at `at` (an ESC): `ESC [ params m`; `NOT_PLAIN` if it is not one, `UNFINISHED` if the text ends first. */
function sgrEnd(text: string, at: number): number {
  if (at + 1 >= text.length) return UNFINISHED;
  if (text.charCodeAt(at + 1) !== 0x5b) return NOT_PLAIN;
  let params = 1;
  let digits = 0;
  for (let i = at + 2; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0x30 && unit <= 0x39) {
      if (++digits > 4) return NOT_PLAIN;
    } else if (unit === 0x3b) {
      if (++params > MAX_PARAMS) return NOT_PLAIN;
      digits = 0;
    } else if (unit === 0x6d) {
      return paramsPlain(text, at + 2, i) ? i + 1 : NOT_PLAIN;
    } else return NOT_PLAIN;
  }
  return UNFINISHED;
}

/** The params of the SGR read last (`readParams`), an empty one as 0. */
const params = new Int32Array(MAX_PARAMS);

/** Reads the params of a plain SGR (`text` from `from` to `to`) into `params`; returns their count. */
function readParams(text: string, from: number, to: number): number {
  let count = 0;
  let value = 0;
  for (let i = from; i < to; i++) {
    const unit = text.charCodeAt(i);
    if (unit === 0x3b) {
      params[count++] = value;
      value = 0;
    } else value = value * 10 + unit - 0x30;
  }
  params[count++] = value;
  return count;
}

/**
 * Whether an SGR's params are plain: none `NOT_KEPT`, and every colour form (38, 48) spelled out,
 * `5;n` or `2;r;g;b`, each at most 255.
 */
function paramsPlain(text: string, from: number, to: number): boolean {
  const length = readParams(text, from, to);
  for (let i = 0; i < length; i++) {
    if (NOT_KEPT.has(params[i])) return false;
    if (params[i] !== 38 && params[i] !== 48) continue;
    const count = COLOR_PARAMS[params[i + 1]];
    if (count === undefined || i + 1 + count >= length) return false;
    for (let k = i + 2; k <= i + 1 + count; k++) if (params[k] > 255) return false;
    i += 1 + count;
  }
  return true;
}

/** Applies a plain SGR's params (`text` from `from` to `to`) to `style` as xterm.js does. */
function applySgr(text: string, from: number, to: number, style: Style): void {
  const length = readParams(text, from, to);
  for (let i = 0; i < length; i++) {
    const p = params[i];
    if (p === 0) {
      style.fg = DEFAULT_COLOR;
      style.bg = DEFAULT_COLOR;
      style.attrs = 0;
    } else if (p >= 30 && p <= 37) style.fg = COLOR_PALETTE | (p - 30);
    else if (p >= 40 && p <= 47) style.bg = COLOR_PALETTE | (p - 40);
    else if (p >= 90 && p <= 97) style.fg = COLOR_PALETTE | (p - 90 + 8);
    else if (p >= 100 && p <= 107) style.bg = COLOR_PALETTE | (p - 100 + 8);
    else if (p === 39) style.fg = DEFAULT_COLOR;
    else if (p === 49) style.bg = DEFAULT_COLOR;
    else if (p === 38 || p === 48) {
      const rgb = params[i + 1] === 2;
      const color = rgb ? COLOR_RGB | (params[i + 2] << 16) | (params[i + 3] << 8) | params[i + 4] : COLOR_PALETTE | params[i + 2];
      if (p === 38) style.fg = color;
      else style.bg = color;
      i += rgb ? 4 : 2;
    } else if (SET[p]) style.attrs |= SET[p];
    else if (CLEAR[p]) style.attrs &= ~CLEAR[p];
    // Any other number xterm.js ignores.
  }
}
