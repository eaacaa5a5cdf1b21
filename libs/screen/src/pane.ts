import type { Grid, Rect } from './grid';
import { Attr, COLOR_PALETTE, COLOR_RGB, DEFAULT_COLOR, type Color, type Style } from './style';

// The part of @xterm/headless's buffer API this library reads, declared here so that nothing
// imports xterm at run time: an `IBuffer` from `terminal.buffer.active` fits `PaneBuffer`.

export interface PaneCell {
  getChars(): string;
  getWidth(): number;
  getCode(): number;
  isFgRGB(): boolean;
  isFgPalette(): boolean;
  isFgDefault(): boolean;
  isBgRGB(): boolean;
  isBgPalette(): boolean;
  isBgDefault(): boolean;
  getFgColor(): number;
  getBgColor(): number;
  isBold(): number;
  isDim(): number;
  isItalic(): number;
  isUnderline(): number;
  isBlink(): number;
  isInverse(): number;
  isInvisible(): number;
  isStrikethrough(): number;
  isAttributeDefault(): boolean;
}

export interface PaneLine {
  readonly length: number;
  getCell(x: number, cell?: PaneCell): PaneCell | undefined;
}

export interface PaneBuffer {
  readonly cursorX: number;
  readonly cursorY: number;
  readonly baseY: number;
  readonly viewportY: number;
  readonly length: number;
  getLine(y: number): PaneLine | undefined;
  getNullCell(): PaneCell;
}

export interface CopyPaneOptions {
  /** The buffer line shown in the rectangle's top row; the buffer's viewport by default. */
  top?: number;
}

export function fgOf(cell: PaneCell): Color {
  if (cell.isFgDefault()) return DEFAULT_COLOR;
  return (cell.isFgRGB() ? COLOR_RGB : COLOR_PALETTE) | cell.getFgColor();
}

export function bgOf(cell: PaneCell): Color {
  if (cell.isBgDefault()) return DEFAULT_COLOR;
  return (cell.isBgRGB() ? COLOR_RGB : COLOR_PALETTE) | cell.getBgColor();
}

export function attrsOfCell(cell: PaneCell): number {
  return (
    (cell.isBold() ? Attr.bold : 0) |
    (cell.isDim() ? Attr.dim : 0) |
    (cell.isItalic() ? Attr.italic : 0) |
    (cell.isUnderline() ? Attr.underline : 0) |
    (cell.isBlink() ? Attr.blink : 0) |
    (cell.isInverse() ? Attr.inverse : 0) |
    (cell.isInvisible() ? Attr.invisible : 0) |
    (cell.isStrikethrough() ? Attr.strikethrough : 0)
  );
}

/** A cell's style as the screen keeps it; xterm.js's current SGR state (`AttributeData`) reads the same. */
export function cellStyle(cell: PaneCell): Style {
  return { fg: fgOf(cell), bg: bgOf(cell), attrs: attrsOfCell(cell) };
}

/**
 * Copies the buffer's lines from `top` into `rect` of the grid (clipped to the grid). Columns and
 * rows the buffer does not have are left blank in the default style. A wide character whose right
 * half falls outside the rectangle becomes a blank of its style, so nothing spills into a border.
 */
export function copyPane(grid: Grid, buffer: PaneBuffer, rect: Rect, options: CopyPaneOptions = {}): void {
  const top = options.top ?? buffer.viewportY;
  const left = Math.max(0, rect.x);
  const right = Math.min(grid.cols, rect.x + rect.width);
  const firstRow = Math.max(0, rect.y);
  const lastRow = Math.min(grid.rows, rect.y + rect.height);
  const cell = buffer.getNullCell();
  for (let y = firstRow; y < lastRow; y++) {
    const line = buffer.getLine(top + y - rect.y);
    const available = line ? Math.min(line.length, right - rect.x) : 0;
    let x = left;
    for (let column = x - rect.x; column < available; column = x - rect.x) {
      line!.getCell(column, cell);
      const width = cell.getWidth();
      if (width === 0) {
        // No wide character before it here: the right half of one that starts left of the
        // rectangle, or a combining mark xterm.js keeps alone at a line's start. A blank either way.
        grid.put(x++, y, 0, null, 1, fgOf(cell), bgOf(cell), attrsOfCell(cell));
        continue;
      }
      const chars = cell.getChars();
      const codePoint = chars.length === 0 ? 0 : chars.codePointAt(0)!;
      const cluster = chars.length > (codePoint > 0xffff ? 2 : 1) ? chars : null;
      if (width === 2 && x + 1 >= right) {
        grid.put(x++, y, 0, null, 1, fgOf(cell), bgOf(cell), attrsOfCell(cell));
        continue;
      }
      // Most cells have no colour or attribute at all: one call tells.
      if (cell.isAttributeDefault()) grid.put(x, y, codePoint, cluster, width === 2 ? 2 : 1, DEFAULT_COLOR, DEFAULT_COLOR, 0);
      else grid.put(x, y, codePoint, cluster, width === 2 ? 2 : 1, fgOf(cell), bgOf(cell), attrsOfCell(cell));
      x += width === 2 ? 2 : 1;
    }
    for (; x < right; x++) grid.put(x, y, 0, null, 1, DEFAULT_COLOR, DEFAULT_COLOR, 0);
  }
}

/**
 * Where the pane's cursor is in grid coordinates, or null when it is outside the rectangle (the
 * buffer scrolled back, or the rectangle is smaller than the pane's terminal). A cursor waiting to
 * wrap (on or past the edge) is shown on the last column.
 */
export function paneCursor(buffer: PaneBuffer, rect: Rect, options: CopyPaneOptions = {}): { x: number; y: number } | null {
  const top = options.top ?? buffer.viewportY;
  const row = buffer.baseY + buffer.cursorY - top;
  // xterm can leave the cursor past the edge, not only on it: a combining mark written while the
  // cursor waits to wrap after emoji at the last columns (Unicode 6 widths) makes cursorX cols + 1.
  const cols = buffer.getLine(buffer.baseY + buffer.cursorY)?.length ?? rect.width;
  const column = Math.min(buffer.cursorX, cols - 1);
  if (row < 0 || row >= rect.height || column < 0 || column >= rect.width) return null;
  return { x: rect.x + column, y: rect.y + row };
}
