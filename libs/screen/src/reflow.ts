import type { XtermTerminal } from './xterm-internals';

/** What `roomForReflow` reads and sets of a terminal: its size and its `scrollback` option. */
interface Resizable extends XtermTerminal {
  readonly options: { scrollback?: number };
  readonly buffer: { readonly normal: { readonly length: number } };
  resize(cols: number, rows: number): void;
}

/**
 * Makes room for xterm.js to reflow its normal buffer to `cols` columns without overflowing it:
 * xterm.js 6.0.0, narrowing a buffer whose rows then outnumber its scrollback, leaves the cursor's
 * row (a blank one after a line feed) a wrapped copy of cells from the line above, so the next
 * output continues that line (test/reflow.test.ts holds both). The room is the most rows the
 * reflow can make (every row split at the new width, and one more for a wide character pushed
 * over). Returns what puts the scrollback back once the caller has kept what it keeps of the rows
 * above: the oldest rows then go, as an overflow would have trimmed them. Nothing to do when the
 * terminal does not narrow (wider, its lines take fewer rows) or the rows fit.
 */
export function roomForReflow(term: Resizable, cols: number): () => void {
  // Unset, xterm.js keeps its default of 1000 rows.
  const scrollback = term.options.scrollback ?? 1000;
  const rows = term.buffer.normal.length * (Math.ceil(term.cols / cols) + 1);
  if (cols >= term.cols || rows <= scrollback + term.rows) return () => undefined;
  term.options.scrollback = rows;
  return () => {
    term.options.scrollback = scrollback;
  };
}

/** A resize with `roomForReflow` around it, for a terminal that keeps nothing of its own above its scrollback. */
export function resizeWithRoom(term: Resizable, cols: number, rows: number): void {
  const restore = roomForReflow(term, cols);
  term.resize(cols, rows);
  restore();
}
