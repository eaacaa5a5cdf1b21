import { charsetActive, currentAttr, parserInGround, scrollRegion, UNFINISHED, type PlainLines } from '@paneflow/screen';
import type { Terminal } from '@xterm/headless';

// Which of a write's plain lines the canonical terminal skims (lays out straight into its deep
// store, never parsed) and which it holds back or parses: ARCHITECTURE.md, "A flood's plain lines
// are skimmed, not parsed".

/**
 * Characters the terminal parses at least before it looks again for plain lines to skim: a
 * program whose output never becomes plain (a full-screen one, a scroll region) is parsed in
 * pieces this large, not line by line.
 */
export const PARSE_AT_LEAST = 1024;
/** The most of a line not ended yet that is held back with the plain lines before it. */
export const HOLD_UNFINISHED = 4 * 1024;
/** What a skimmed character costs beside a parsed one, for the thread's slices (measured: about 1/8). */
export const SKIM_COST = 1 / 8;
/** xterm's underline styles up to the one a kept row keeps: none, single. */
const SINGLE_UNDERLINE = 1;

/** The ends and rows of plain lines already measured. */
export interface MeasuredLines {
  ends: number[];
  rows: number[];
}

/** Plain lines found in a write (`plainRun`). */
export interface PlainRun {
  /** Where the last of them ends. */
  end: number;
  /** The text ends in a line that is plain so far, not ended yet. */
  unfinished: boolean;
  /** Where those to skim end, and their rows and lines. */
  skimTo: number;
  rows: number;
  lines: number;
  /** The ends (from `skimTo`) and rows of the others: what is held back if the write ends with them. */
  heldLines: MeasuredLines;
}

/** Where the line that `at` is on ends: after its line feed, or at the text's end. */
export function lineEnd(text: string, at: number): number {
  const feed = text.indexOf('\n', at);
  return feed < 0 ? text.length : feed + 1;
}

/**
 * Whether what comes next would be laid out as PlainLines lays it out: the normal screen, the
 * cursor on an empty bottom row of a full-screen scroll region, autowrap on, insert mode, a
 * character set and a link off, the parser between sequences, and a current style that a kept
 * row keeps whole (no overline, underline colour or underline but a single one).
 */
export function readyToSkim(term: Terminal): boolean {
  const buffer = term.buffer.active;
  const bottom = term.rows - 1;
  if (buffer.type !== 'normal' || buffer.cursorX !== 0 || buffer.cursorY !== bottom) return false;
  const region = scrollRegion(term);
  if (region.top !== 0 || region.bottom !== bottom) return false;
  const modes = term.modes;
  if (!modes.wraparoundMode || modes.insertMode || charsetActive(term)) return false;
  const attr = currentAttr(term);
  if (!parserInGround(term) || attr.isOverline()) return false;
  // A link shows as an underline style of its own (dashed), so the style check keeps links out too.
  if (attr.extended.underlineStyle > SINGLE_UNDERLINE || attr.extended.underlineColor !== 0) return false;
  const row = buffer.getLine(buffer.baseY + buffer.cursorY);
  return row !== undefined && !row.isWrapped && row.translateToString(true).length === 0;
}

/**
 * The plain lines of `text` from `at`: where they end, whether the text ends in a plain line not
 * ended yet, and up to which of their line ends they can be skimmed (with the rows and lines
 * skimmed): all but the last that fill a screen of `screenRows`, which xterm parses so as to show
 * them. `known` are those already measured from `at` (the lines held back, measured when they came).
 */
export function plainRun(plain: PlainLines, screenRows: number, text: string, at: number, known: MeasuredLines): PlainRun {
  const { ends, rows } = known;
  let end = plain.measure(text, ends.at(-1) ?? at);
  for (; end >= 0; end = plain.measure(text, end)) {
    ends.push(end);
    rows.push(plain.rows);
  }
  let shown = 0;
  let kept = ends.length;
  while (kept > 0 && shown < screenRows) shown += rows[--kept];
  let skimmedRows = 0;
  for (let line = 0; line < kept; line++) skimmedRows += rows[line];
  const skimTo = kept > 0 ? ends[kept - 1] : at;
  const heldLines = { ends: ends.slice(kept).map((lineEnd) => lineEnd - skimTo), rows: rows.slice(kept) };
  return { end: ends.at(-1) ?? at, skimTo, rows: skimmedRows, lines: kept, unfinished: end === UNFINISHED, heldLines };
}
