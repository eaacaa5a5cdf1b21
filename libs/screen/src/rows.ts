import { attrsOfCell, bgOf, fgOf, type PaneCell, type PaneLine } from './pane';
import { ATTRIBUTE_CODES, colorParams } from './render';
import { DEFAULT_COLOR } from './style';

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
  const runs: number[] = [];
  let at = 0;
  let runStart = 0;
  let fg = DEFAULT_COLOR;
  let bg = DEFAULT_COLOR;
  let attrs = 0;
  let styled = false;
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
      const cellFg = plain ? DEFAULT_COLOR : fgOf(cell);
      const cellBg = plain ? DEFAULT_COLOR : bgOf(cell);
      const cellAttrs = plain ? 0 : attrsOfCell(cell);
      if (cellFg !== fg || cellBg !== bg || cellAttrs !== attrs) {
        if (at > runStart) runs.push(at - runStart, fg, bg, attrs);
        runStart = at;
        fg = cellFg;
        bg = cellBg;
        attrs = cellAttrs;
        styled = true;
      }
    }
    at += unitsOf(cell);
    x += cell.getWidth() || 1;
  }
  if (styled && text.length > runStart) runs.push(text.length - runStart, fg, bg, attrs);
  return { text, runs, wrapped: line.isWrapped };
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
 * Rows as one string (a block of a store), for `unpackRows`: a line per row, `w` or `-` (wrapped
 * or not), the runs as decimal numbers with commas, `;`, the text. A row's text cannot hold a
 * line feed (a terminal's cells never do); one that does is a `RangeError`.
 */
export function packRows(rows: readonly KeptRow[]): string {
  let packed = '';
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i];
    if (row.text.includes('\n')) throw new RangeError(`row ${i} holds a line feed`);
    packed += `${i > 0 ? '\n' : ''}${row.wrapped ? 'w' : '-'}${row.runs.join(',')};${row.text}`;
  }
  return packed;
}

const PACKED_ROW = /^([w-])((?:\d+(?:,\d+)*)?);/;

/** The rows `packRows` wrote; throws a `TypeError` on anything else. */
export function unpackRows(packed: string): KeptRow[] {
  if (packed === '') return [];
  return packed.split('\n').map((line, index) => {
    const head = PACKED_ROW.exec(line);
    if (!head) throw new TypeError(`packed row ${index} is not [w-]runs;text`);
    const runs = head[2] === '' ? [] : head[2].split(',').map(Number);
    const text = line.slice(head[0].length);
    if (runs.length % 4 !== 0) throw new TypeError(`packed row ${index} has ${runs.length} run numbers, not fours`);
    let covered = 0;
    for (let i = 0; i < runs.length; i += 4) covered += runs[i];
    if (runs.length > 0 && covered !== text.length) throw new TypeError(`packed row ${index}: its runs cover ${covered} of ${text.length} code units`);
    return { text, wrapped: head[1] === 'w', runs };
  });
}

/** Only the texts and wraps of the rows `packRows` wrote (their runs not read): what a search needs. */
export function unpackTexts(packed: string): Array<Pick<KeptRow, 'text' | 'wrapped'>> {
  if (packed === '') return [];
  return packed.split('\n').map((line, index) => {
    const head = PACKED_ROW.exec(line);
    if (!head) throw new TypeError(`packed row ${index} is not [w-]runs;text`);
    return { text: line.slice(head[0].length), wrapped: head[1] === 'w' };
  });
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
