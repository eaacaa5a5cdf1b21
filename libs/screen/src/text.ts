import { sanitizeForDisplay } from '@paneflow/osc7501';
import type { Grid } from './grid';
import type { Style } from './style';
import { charWidth } from './width';

// C0 controls, DEL, C1 controls, the line and paragraph separators (which break lines as LF does)
// and lone surrogates: none may reach the outer terminal as is.
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const UNSAFE_FOR_GRID = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
/** Where a mark with no character before it sits, as Unicode shows a lone combining mark. */
const DOTTED_CIRCLE = 0x25cc;

function visibleEscape(unsafe: string): string {
  const code = unsafe.charCodeAt(0);
  if (code < 0x20) return `^${String.fromCharCode(code + 0x40)}`;
  if (code === 0x7f) return '^?';
  return '\ufffd';
}

/**
 * Text made safe to put into cells: bidi overrides, isolates and invisible format characters are
 * removed (`sanitizeForDisplay` of @paneflow/osc7501, OSC7501.md §11.2), C0 controls and DEL become caret notation (`^[`, `^G`, `^?`),
 * C1 controls, U+2028 and U+2029 and lone surrogates U+FFFD.
 */
export function sanitizeForGrid(text: string): string {
  return sanitizeForDisplay(text).replace(UNSAFE_FOR_GRID, visibleEscape);
}

type CellVisitor = (codePoint: number, cluster: string | null, width: 1 | 2) => boolean;

/**
 * Splits sanitized text into cells, a base character with the zero-width marks after it; stops
 * when `visit` returns false.
 */
function forEachCell(text: string, visit: CellVisitor): void {
  let i = 0;
  while (i < text.length) {
    const start = i;
    const first = text.codePointAt(i)!;
    const firstWidth = charWidth(first);
    if (firstWidth !== 0) i += first > 0xffff ? 2 : 1;
    while (i < text.length) {
      const next = text.codePointAt(i)!;
      if (charWidth(next) !== 0) break;
      i += next > 0xffff ? 2 : 1;
    }
    const keep =
      firstWidth === 0
        ? visit(DOTTED_CIRCLE, String.fromCodePoint(DOTTED_CIRCLE) + text.slice(start, i), 1)
        : visit(first, i - start > (first > 0xffff ? 2 : 1) ? text.slice(start, i) : null, firstWidth);
    if (!keep) return;
  }
}

function widthOfClean(clean: string): number {
  let columns = 0;
  forEachCell(clean, (_code, _cluster, width) => {
    columns += width;
    return true;
  });
  return columns;
}

/** The columns `text` takes once sanitized for the grid. */
export function displayWidth(text: string): number {
  return widthOfClean(sanitizeForGrid(text));
}

export interface WriteTextOptions {
  /** Columns the text may take from x; the rest of the row by default. */
  maxWidth?: number;
  /** Shown at the end when the text does not fit, e.g. '…'; none by default (plain clipping). */
  ellipsis?: string;
}

/**
 * Writes `text` at (x, y) in `style`, sanitized (`sanitizeForGrid`) and measured by display width,
 * clipped to `maxWidth` and to the grid. A wide character cut by the clip leaves a blank in the
 * style, after the ellipsis if there is one. Returns the columns written.
 */
export function writeText(grid: Grid, x: number, y: number, text: string, style: Style, options: WriteTextOptions = {}): number {
  if (y < 0 || y >= grid.rows || x >= grid.cols) return 0;
  const end = Math.min(grid.cols, x + (options.maxWidth ?? grid.cols - x));
  const clean = sanitizeForGrid(text);
  let limit = end;
  let ellipsis = '';
  if (options.ellipsis && x + widthOfClean(clean) > end) {
    ellipsis = sanitizeForGrid(options.ellipsis);
    limit = Math.max(x, end - widthOfClean(ellipsis));
  }
  let column = x;
  let cut = false;
  const put: CellVisitor = (codePoint, cluster, width) => {
    if (column + width > limit) {
      cut = true;
      return false;
    }
    if (column >= 0) grid.put(column, y, codePoint, cluster, width, style.fg, style.bg, style.attrs);
    else if (column + width > 0) grid.put(0, y, 0, null, 1, style.fg, style.bg, style.attrs);
    column += width;
    return true;
  };
  forEachCell(clean, put);
  if (ellipsis) {
    limit = end;
    forEachCell(ellipsis, put);
  }
  // A cut wide character leaves at most one column short of the clip.
  if (cut && column < end && column >= 0) grid.put(column++, y, 0, null, 1, style.fg, style.bg, style.attrs);
  return Math.max(0, column - Math.max(0, x));
}
