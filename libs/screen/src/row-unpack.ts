import { PlainLines, type CharWidth } from './plain-lines';
import { PLAIN, TEXT_END } from './row-packer';
import type { KeptRow } from './rows';
import type { Style } from './style';

// Reading back a block RowPacker wrote: every row, with its runs or (for a search) without, and
// the plain lines packed as they came laid out into rows; a block of any other shape is refused.

interface Utf8Decoder {
  decode(input: Uint8Array): string;
}
const platform = globalThis as unknown as { TextDecoder: new (label: 'utf-8', options: { ignoreBOM: boolean }) => Utf8Decoder };
// ignoreBOM: a row may begin with U+FEFF, which is text like any other.
const decoder = new platform.TextDecoder('utf-8', { ignoreBOM: true });

/**
 * Reads a block `RowPacker` wrote, row by row; `withRuns` false skips the runs (what a search
 * needs). Plain lines are laid out with `width`, the widths they were measured with.
 */
function unpack<T>(block: Uint8Array, withRuns: boolean, width: CharWidth | undefined, make: (text: string, runs: number[], wrapped: boolean) => T): T[] {
  const rows: T[] = [];
  let at = 0;
  const number = (index: number) => {
    let value = 0;
    for (let scale = 1; ; scale *= 128) {
      if (at >= block.length) throw new TypeError(`packed row ${index} ends inside a number`);
      const byte = block[at++];
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
    }
  };
  const plainLines = (index: number) => {
    at++;
    const cols = number(index);
    const style: Style = { fg: number(index), bg: number(index), attrs: number(index) };
    const count = number(index);
    if (at + 4 > block.length) throw new TypeError(`packed plain lines at row ${index} end inside their length`);
    const length = (block[at] | (block[at + 1] << 8) | (block[at + 2] << 16) | (block[at + 3] << 24)) >>> 0;
    at += 4;
    if (at + length > block.length) throw new TypeError(`packed plain lines at row ${index} end early`);
    if (!width) throw new TypeError(`packed plain lines at row ${index}, and no widths to lay them out with`);
    const text = decoder.decode(block.subarray(at, at + length));
    at += length;
    new PlainLines(cols, width).layout(text, 0, text.length, style, (text, runs, wrapped) => rows.push(make(text, runs, wrapped)), withRuns);
    const laid = rows.length - index;
    if (laid !== count) throw new TypeError(`packed plain lines at row ${index} lay out as ${laid} rows, not ${count}`);
  };
  while (at < block.length) {
    const index = rows.length;
    if (block[at] === PLAIN) {
      plainLines(index);
      continue;
    }
    const end = block.indexOf(TEXT_END, at);
    if (end === -1) throw new TypeError(`packed row ${index} has no end to its text`);
    const text = decoder.decode(block.subarray(at, end));
    at = end + 1;
    const head = number(index);
    const count = head >> 1;
    if (count % 4 !== 0) throw new TypeError(`packed row ${index} has ${count} run numbers, not fours`);
    const runs: number[] = [];
    let covered = 0;
    for (let i = 0; i < count; i++) {
      const value = number(index);
      if (!withRuns) continue;
      runs.push(value);
      if (i % 4 === 0) covered += value;
    }
    if (withRuns && count > 0 && covered !== text.length) throw new TypeError(`packed row ${index}: its runs cover ${covered} of ${text.length} code units`);
    rows.push(make(text, runs, (head & 1) === 1));
  }
  return rows;
}

/** The rows `RowPacker` packed (plain lines laid out with `width`); throws a `TypeError` on anything else. */
export function unpackRows(block: Uint8Array, width?: CharWidth): KeptRow[] {
  return unpack(block, true, width, (text, runs, wrapped) => ({ text, runs, wrapped }));
}

/** Only the texts and wraps of the rows `RowPacker` packed (their runs skipped): what a search needs. */
export function unpackTexts(block: Uint8Array, width?: CharWidth): Array<Pick<KeptRow, 'text' | 'wrapped'>> {
  return unpack(block, false, width, (text, _runs, wrapped) => ({ text, wrapped }));
}
