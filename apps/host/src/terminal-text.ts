import type { Terminal } from '@xterm/headless';

/**
 * The terminal's rows from `first` (scrollback then screen) to the last non-blank one, each with
 * whether it continues the row above (a soft wrap); `joinRows` makes them logical lines.
 */
export function rowsOf(term: Terminal, first = 0): Array<{ text: string; wrapped: boolean }> {
  const buffer = term.buffer.active;
  const lastRow = lastNonBlankRow(term);
  const rows: Array<{ text: string; wrapped: boolean }> = [];
  for (let row = first; row <= lastRow; row++) {
    const line = buffer.getLine(row);
    if (!line) break;
    rows.push({ text: line.translateToString(true), wrapped: line.isWrapped });
  }
  return rows;
}

function lastNonBlankRow(term: Terminal): number {
  const buffer = term.buffer.active;
  for (let row = buffer.length - 1; row >= 0; row--) {
    if (buffer.getLine(row)?.translateToString(true)) return row;
  }
  return -1;
}

/** The last lines whose UTF-8 size stays within `maxBytes`, joined by newlines. */
export function tailText(lines: string[], maxBytes: number): string {
  let bytes = 0;
  let start = lines.length;
  while (start > 0) {
    const size = Buffer.byteLength(lines[start - 1]) + 1;
    if (bytes + size > maxBytes) break;
    bytes += size;
    start--;
  }
  return lines.slice(start).join('\n');
}
