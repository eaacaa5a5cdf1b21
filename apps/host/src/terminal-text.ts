import type { Terminal } from '@xterm/headless';

/**
 * The terminal's kept text as logical lines: scrollback then screen, a soft-wrapped row joined to
 * the row it continues, and no trailing blank rows.
 */
export function logicalLines(term: Terminal): string[] {
  const buffer = term.buffer.active;
  const lastRow = lastNonBlankRow(term);
  const lines: string[] = [];
  for (let row = 0; row <= lastRow; row++) {
    const line = buffer.getLine(row);
    if (!line) break;
    const text = line.translateToString(true);
    if (line.isWrapped && lines.length > 0) lines[lines.length - 1] += text;
    else lines.push(text);
  }
  return lines;
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
