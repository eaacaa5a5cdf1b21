import { Terminal } from '@xterm/headless';
import { copyPane, Grid, paneCursor, Renderer, type Cursor } from '../src';

/** A headless xterm.js terminal like the ones that mirror panes. */
export function terminal(cols: number, rows: number): Terminal {
  return new Terminal({ cols, rows, allowProposedApi: true, scrollback: 100 });
}

export function write(term: Terminal, data: string): Promise<void> {
  return new Promise((resolve) => term.write(data, resolve));
}

/**
 * Every cell of the visible screen (or of `area`) as `chars|width|fg|bg|attrs`, row by row, and the cursor (a
 * cursor waiting to wrap counts as on the last column). A blank reads the same as a space, as it
 * looks. xterm.js keeps a combining mark that has no character before it (at a line's start) in a
 * cell of width 0 of its own, which no byte stream can recreate elsewhere; copyPane shows it as a
 * blank, and so does this reading.
 */
export function screenOf(term: Terminal, area = { x: 0, y: 0, width: term.cols, height: term.rows }): { rows: string[][]; cursor: { x: number; y: number } } {
  const buffer = term.buffer.active;
  const cell = buffer.getNullCell();
  const rows: string[][] = [];
  for (let y = area.y; y < area.y + area.height; y++) {
    const line = buffer.getLine(buffer.viewportY + y)!;
    const row: string[] = [];
    let previousWidth = 1;
    for (let x = area.x; x < area.x + area.width; x++) {
      line.getCell(x, cell);
      const orphanMark = cell.getWidth() === 0 && previousWidth !== 2;
      const width = orphanMark ? 1 : cell.getWidth();
      const chars = orphanMark ? ' ' : cell.getChars() || (width === 0 ? '' : ' ');
      const fg = cell.isFgDefault() ? 'default' : `${cell.isFgRGB() ? 'rgb' : 'palette'}:${cell.getFgColor()}`;
      const bg = cell.isBgDefault() ? 'default' : `${cell.isBgRGB() ? 'rgb' : 'palette'}:${cell.getBgColor()}`;
      const attrs = [
        cell.isBold() && 'bold',
        cell.isDim() && 'dim',
        cell.isItalic() && 'italic',
        cell.isUnderline() && 'underline',
        cell.isBlink() && 'blink',
        cell.isInverse() && 'inverse',
        cell.isInvisible() && 'invisible',
        cell.isStrikethrough() && 'strikethrough',
      ]
        .filter(Boolean)
        .join(',');
      row.push(`${chars}|${width}|${fg}|${bg}|${attrs}`);
      previousWidth = cell.getWidth();
    }
    rows.push(row);
  }
  return { rows, cursor: { x: Math.min(buffer.cursorX, term.cols - 1), y: buffer.cursorY } };
}

/** Asserts that `actual` shows what `expected` shows; the deep diff is built only on a mismatch. */
export function expectSameScreen(actual: Terminal, expected: Terminal): void {
  const seen = screenOf(actual);
  const wanted = screenOf(expected);
  if (JSON.stringify(seen) !== JSON.stringify(wanted)) expect(seen).toEqual(wanted);
}

/**
 * Terminal A is the pane, terminal B the outer terminal: each `sync` copies A's screen into a grid,
 * renders it and writes the bytes into B.
 */
export class Mirror {
  readonly a: Terminal;
  readonly b: Terminal;
  readonly renderer = new Renderer();
  readonly grid: Grid;
  /** Every frame's bytes, for the assertions on what went over the wire. */
  readonly frames: string[] = [];

  constructor(cols: number, rows: number) {
    this.a = terminal(cols, rows);
    this.b = terminal(cols, rows);
    this.grid = new Grid(cols, rows);
  }

  async sync(): Promise<string> {
    const rect = { x: 0, y: 0, width: this.a.cols, height: this.a.rows };
    copyPane(this.grid, this.a.buffer.active, rect);
    const at = paneCursor(this.a.buffer.active, rect)!;
    const cursor: Cursor = { x: at.x, y: at.y, visible: true, shape: 'block' };
    const bytes = this.renderer.render(this.grid, cursor);
    this.frames.push(bytes);
    await write(this.b, bytes);
    return bytes;
  }

  dispose(): void {
    this.a.dispose();
    this.b.dispose();
  }
}
