import type { XtermTerminal } from './xterm-internals';

/** What `roomForResize` reads and sets of a terminal: its size and its `scrollback` option. */
interface Resizable extends XtermTerminal {
  readonly options: { scrollback?: number };
  readonly buffer: { readonly normal: { readonly length: number } };
  resize(cols: number, rows: number): void;
}

/**
 * Makes room for xterm.js to resize its normal buffer to `cols`×`rows` without trimming it, and
 * returns what puts the scrollback back once the caller has kept what it keeps of the rows above:
 * the oldest rows then go, as the overflow would have trimmed them. Two reasons. xterm.js 6.0.0,
 * narrowing a buffer whose rows then outnumber its scrollback, leaves the cursor's row (a blank one
 * after a line feed) a wrapped copy of cells from the line above, so the next output continues
 * that line (test/reflow.test.ts holds both); the room is the most rows the reflow can make (every
 * row split at the new width, and one more for a wide character pushed over). And fewer rows push
 * the screen's top rows into a scrollback xterm trims at once, before a caller that keeps rows
 * above it (the host's deep store) has kept them. Nothing to do when every row fits.
 */
export function roomForResize(term: Resizable, cols: number, rows: number): () => void {
  // Unset, xterm.js keeps its default of 1000 rows.
  const scrollback = term.options.scrollback ?? 1000;
  const { length } = term.buffer.normal;
  // Wider or as wide, its lines take no more rows than they do.
  const needed = cols < term.cols ? length * (Math.ceil(term.cols / cols) + 1) : length;
  if (needed <= scrollback + rows) return () => undefined;
  term.options.scrollback = needed;
  return () => {
    term.options.scrollback = scrollback;
  };
}

/** A resize with `roomForResize` around it, for a terminal that keeps nothing of its own above its scrollback. */
export function resizeWithRoom(term: Resizable, cols: number, rows: number): void {
  const restore = roomForResize(term, cols, rows);
  term.resize(cols, rows);
  restore();
}
