import { WIDE_RANGES, ZERO_WIDTH_RANGES } from './width-tables';

// The Basic Multilingual Plane is looked up in a 64 KiB table built on first use; the rarer
// astral planes by binary search over the range tables.
let bmpWidths: Uint8Array | null = null;

function buildBmpTable(): Uint8Array {
  const table = new Uint8Array(0x10000).fill(1);
  const mark = (ranges: readonly number[], width: number) => {
    for (let i = 0; i < ranges.length && ranges[i] < 0x10000; i += 2) table.fill(width, ranges[i], Math.min(ranges[i + 1], 0xffff) + 1);
  };
  mark(WIDE_RANGES, 2);
  mark(ZERO_WIDTH_RANGES, 0);
  return table;
}

function inRanges(ranges: readonly number[], codePoint: number): boolean {
  let low = 0;
  let high = ranges.length / 2 - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if (codePoint < ranges[middle * 2]) high = middle - 1;
    else if (codePoint > ranges[middle * 2 + 1]) low = middle + 1;
    else return true;
  }
  return false;
}

/**
 * Columns a code point takes in a terminal: 0 for combining marks and invisible format characters,
 * 2 for East Asian wide and fullwidth characters and emoji, 1 otherwise (box drawing included).
 * Control characters get 1 here; text passes them through `sanitizeForGrid` first.
 */
export function charWidth(codePoint: number): 0 | 1 | 2 {
  if (codePoint < 0x300) return codePoint === 0xad ? 0 : 1;
  if (codePoint < 0x10000) return (bmpWidths ??= buildBmpTable())[codePoint] as 0 | 1 | 2;
  if (inRanges(ZERO_WIDTH_RANGES, codePoint)) return 0;
  return inRanges(WIDE_RANGES, codePoint) ? 2 : 1;
}
