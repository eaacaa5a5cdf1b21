import { Terminal } from '@xterm/headless';
import { Unicode11Addon } from '@xterm/addon-unicode11';
import { joinRows, keepRow, RowPacker, rowToSgr, unpackRows, unpackTexts, type KeptLine, type KeptRow } from '../src';
import { write } from './terminals';

const ESC = '\x1b';

function modern(cols: number, rows: number, scrollback = 200): Terminal {
  const term = new Terminal({ cols, rows, scrollback, allowProposedApi: true });
  term.loadAddon(new Unicode11Addon());
  term.unicode.activeVersion = '11';
  return term;
}

function keptRows(term: Terminal): KeptRow[] {
  const buffer = term.buffer.active;
  const cell = buffer.getNullCell();
  const rows: KeptRow[] = [];
  for (let y = 0; y < buffer.length; y++) rows.push(keepRow(buffer.getLine(y)!, cell));
  return rows;
}

/** What a store replays: each row's SGR text, a newline before every row that does not continue the one above. */
function replay(rows: KeptRow[]): string {
  return rows.map((row, i) => (i > 0 && !row.wrapped ? '\r\n' : '') + rowToSgr(row)).join('');
}

// Colours of every kind, attributes, wide and combining characters, emoji, a gap left by a cursor
// move, trailing spaces that were printed, a background painted over blanks, and a line long
// enough to wrap twice with a wide character that does not fit at the edge.
const PRINTED = [
  `${ESC}[1;4;38;5;200;48;2;1;2;3mbold${ESC}[0m plain ${ESC}[31mred${ESC}[39m ${ESC}[7;9;3;2;5;8mall${ESC}[0m\r\n`,
  `中文 e\u0301 👍🏽 ok${ESC}[5Cgap  \r\n`,
  `${ESC}[44m   ${ESC}[0m${ESC}[K${ESC}[42m${ESC}[K${ESC}[0m\r\n`,
  `${'x'.repeat(19)}中${'y'.repeat(25)}${ESC}[92mend${ESC}[0m\r\n`,
  `${ESC}[38;2;255;128;0mrgb${ESC}[0m ${ESC}[95mbright${ESC}[0m ${ESC}[100mgrey${ESC}[0m`,
].join('');

test('a kept row has the text translateToString(true) gives and runs that cover it', async () => {
  const term = modern(20, 10);
  await write(term, PRINTED);
  const buffer = term.buffer.active;
  keptRows(term).forEach((row, y) => {
    const line = buffer.getLine(y)!;
    expect(row.text).toBe(line.translateToString(true));
    expect(row.wrapped).toBe(line.isWrapped);
    let covered = 0;
    for (let i = 0; i < row.runs.length; i += 4) covered += row.runs[i];
    expect(covered).toBe(row.runs.length === 0 ? 0 : row.text.length);
  });
  expect(keptRows(term)[1].runs).toEqual([]); // no style at all: no runs
  term.dispose();
});

test('rows replayed into another terminal of the same width come back cell for cell, colours and wraps kept', async () => {
  const source = modern(20, 10);
  await write(source, PRINTED);
  const rows = keptRows(source);
  const mirror = modern(20, 10);
  await write(mirror, replay(rows));
  expect(keptRows(mirror)).toEqual(rows);
  // The styled cells read the same through xterm's own API.
  const a = source.buffer.active.getLine(0)!.getCell(0)!;
  const b = mirror.buffer.active.getLine(0)!.getCell(0)!;
  expect([b.isBold(), b.isUnderline(), b.getFgColor(), b.isFgPalette(), b.getBgColor(), b.isBgRGB()]).toEqual([a.isBold(), a.isUnderline(), a.getFgColor(), a.isFgPalette(), a.getBgColor(), a.isBgRGB()]);
  source.dispose();
  mirror.dispose();
});

function packRows(rows: KeptRow[]): Uint8Array {
  const packer = new RowPacker();
  for (const row of rows) packer.addRow(row);
  return packer.take();
}

const bytes = (...parts: Array<string | number[]>) => Uint8Array.from(parts.flatMap((part) => (typeof part === 'string' ? [...new TextEncoder().encode(part)] : part)));

test('packed rows unpack to the same rows; joined rows give logical lines', async () => {
  const term = modern(20, 10);
  await write(term, PRINTED);
  const rows = keptRows(term);
  expect(unpackRows(packRows(rows))).toEqual(rows);
  expect(unpackTexts(packRows(rows))).toEqual(rows.map(({ text, wrapped }) => ({ text, wrapped })));
  expect(joinRows(rows).slice(0, 4)).toEqual([
    'bold plain red all',
    '中文 e\u0301 👍🏽 ok     gap  ',
    '   ',
    `${'x'.repeat(19)}中${'y'.repeat(25)}end`,
  ]);
  expect(joinRows([{ text: 'tail', wrapped: true }, { text: 'next', wrapped: false }])).toEqual(['tail', 'next']);
  expect(joinRows([{ text: '+more', wrapped: true }], ['line'])).toEqual(['line+more']);
  term.dispose();
});

test('a line packed from its cell words is the row keepRow keeps, through the public API alone too', async () => {
  const term = modern(20, 10);
  // A BOM and a line feed are text like any other in a packed row.
  await write(term, `${PRINTED}\r\n\ufeffbom ${ESC}[1;38;2;9;8;7m\u{1F600}x${ESC}[0m`);
  const buffer = term.buffer.active;
  const cell = buffer.getNullCell();
  const fast = new RowPacker();
  const publicOnly = new RowPacker();
  for (let y = 0; y < buffer.length; y++) {
    const line = buffer.getLine(y)!;
    fast.addLine(line, cell);
    // Without xterm's internals the packer goes through keepRow.
    const bare: KeptLine = { isWrapped: line.isWrapped, length: line.length, getCell: (x, c) => line.getCell(x, c as never), translateToString: (trim) => line.translateToString(trim) };
    publicOnly.addLine(bare, cell);
  }
  expect([fast.rows, fast.starts, fast.firstWrapped]).toEqual([buffer.length, keptRows(term).filter((r) => !r.wrapped).length, false]);
  const packed = fast.take();
  expect(unpackRows(packed)).toEqual(keptRows(term));
  expect(publicOnly.take()).toEqual(packed);
  expect(fast.length).toBe(0);
  expect(unpackRows(packRows([{ text: 'a\nb\ufeff', runs: [], wrapped: true }]))).toEqual([{ text: 'a\nb\ufeff', runs: [], wrapped: true }]);
  term.dispose();
});

test('a packed block of the wrong shape is refused with a TypeError', () => {
  expect(unpackRows(new Uint8Array())).toEqual([]);
  expect(unpackRows(bytes('a;b', [0xff, 0], 'x', [0xff, 9, 1, 2, 3, 4]))).toEqual([
    { text: 'a;b', runs: [], wrapped: false },
    { text: 'x', runs: [1, 2, 3, 4], wrapped: true },
  ]);
  expect(() => unpackRows(bytes('abc'))).toThrow(/no end/);
  expect(() => unpackTexts(bytes('ok', [0xff, 0], 'abc'))).toThrow(TypeError);
  expect(() => unpackRows(bytes('abc', [0xff, 8, 2, 0, 0, 0]))).toThrow(/cover 2 of 3/);
  expect(() => unpackRows(bytes('abc', [0xff, 8, 3, 0, 0]))).toThrow(/inside a number/);
  expect(() => unpackRows(bytes('abc', [0xff, 4, 3, 0]))).toThrow(/not fours/);
});

test('a control character in a row never reaches the terminal it is replayed into', () => {
  expect(rowToSgr({ text: `a${ESC}[2Jb\u009b`, runs: [], wrapped: false })).toBe('a\ufffd[2Jb\ufffd');
});
