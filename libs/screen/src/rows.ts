import { attrsOfCell, bgOf, fgOf, type PaneCell, type PaneLine } from './pane';
import { ATTRIBUTE_CODES, colorParams } from './render';
import { RunBuilder } from './runs';
import { DEFAULT_COLOR } from './style';
import { cellWords, CONTENT_CODE_POINT, CONTENT_IS_COMBINED } from './xterm-internals';

// What a row kept outside its terminal is: read from an xterm.js line (`keepRow`), redrawn
// (`rowToSgr`), joined into logical lines (`joinRows`). Packing rows into a store's blocks is
// row-packer.ts's, reading them back row-unpack.ts's.

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
 * Code units the cell adds to `translateToString`'s text: from its content word when it has one
 * (no string built), else from its characters.
 */
function unitsOf(cell: PaneCell): number {
  const content = cellWords(cell).content;
  if (typeof content === 'number' && (content & CONTENT_IS_COMBINED) === 0) return (content & CONTENT_CODE_POINT) > 0xffff ? 2 : 1;
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
  // The words of the style last decided (two cells with the same words have the same style; a
  // cell without them is decided by its methods); xterm's default style is 0 and 0.
  let lastFg: number | undefined = 0;
  let lastBg: number | undefined = 0;
  for (let x = 0; at < text.length && x < line.length; ) {
    line.getCell(x, cell);
    const words = cellWords(cell);
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
