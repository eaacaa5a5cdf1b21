import { Unicode11Addon } from '@xterm/addon-unicode11';
import { Terminal } from '@xterm/headless';
import { attrsOfCell, bgOf, fgOf } from '../src/pane';
import { NOT_PLAIN, PlainLines, sgrToReplay, UNFINISHED } from '../src/plain-lines';
import { RowPacker } from '../src/row-packer';
import { unpackRows, unpackTexts } from '../src/row-unpack';
import { keepRow, type KeptLine, type KeptRow } from '../src/rows';
import { DEFAULT_STYLE, type Style } from '../src/style';
import { currentAttr, terminalCharWidth } from '../src/xterm-internals';

const ROWS = 4;

/** A terminal as the host keeps one (Unicode 11 widths), its cursor on an empty bottom row. */
function bottomTerminal(cols: number): Terminal {
  const term = new Terminal({ cols, rows: ROWS, scrollback: 5000, allowProposedApi: true });
  term.loadAddon(new Unicode11Addon());
  term.unicode.activeVersion = '11';
  term.write('\r\n'.repeat(ROWS));
  return term;
}

const write = (term: Terminal, data: string) => new Promise<void>((resolve) => term.write(data, resolve));

function styleOf(term: Terminal): Style {
  const attr = currentAttr(term);
  return { fg: fgOf(attr), bg: bgOf(attr), attrs: attrsOfCell(attr) };
}

/** The rows xterm.js leaves for `input`, printed from the empty bottom row: the reference. */
async function xtermRows(input: string, cols: number): Promise<{ rows: KeptRow[]; style: Style }> {
  const term = bottomTerminal(cols);
  await write(term, '');
  const buffer = term.buffer.active;
  const start = buffer.baseY + buffer.cursorY;
  await write(term, input);
  const rows: KeptRow[] = [];
  for (let y = start; y < buffer.baseY + buffer.cursorY; y++) rows.push(keepRow(buffer.getLine(y) as unknown as KeptLine, buffer.getNullCell()));
  const style = styleOf(term);
  term.dispose();
  return { rows, style };
}

function plainLines(cols: number): PlainLines {
  return new PlainLines(cols, terminalCharWidth(bottomTerminal(cols)));
}

/** A row sink that keeps the rows in `rows`. */
const into = (rows: KeptRow[]) => (text: string, runs: number[], wrapped: boolean) => rows.push({ text, runs, wrapped });

/** A seeded generator, so a failure repeats. */
function random(seed: number): () => number {
  return () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x80000000;
  };
}

const PIECES = ['hello', ' ', 'world', 'x', '  ', '日本語', '😀', '✓', 'é', '│', '⏺', '…', '{ id: 1 }', '»', '한', 'ｆｕｌｌ'];
const SGRS = ['\x1b[m', '\x1b[0m', '\x1b[1m', '\x1b[1;36m', '\x1b[2m', '\x1b[22m', '\x1b[3m', '\x1b[23m', '\x1b[4m', '\x1b[24m', '\x1b[5m', '\x1b[7m', '\x1b[27m', '\x1b[8m', '\x1b[28m', '\x1b[9m', '\x1b[29m', '\x1b[31m', '\x1b[92m', '\x1b[104m', '\x1b[39m', '\x1b[49m', '\x1b[39;49m', '\x1b[38;5;208m', '\x1b[48;5;3m', '\x1b[38;2;10;200;30m', '\x1b[48;2;1;2;3m', '\x1b[6m', '\x1b[66m', '\x1b[;1m', '\x1b[0;4;31m'];

function randomLines(next: () => number, count: number): string {
  let out = '';
  for (let line = 0; line < count; line++) {
    const length = next() < 0.2 ? Math.floor(next() * 60) : Math.floor(next() * 12);
    for (let i = 0; i < length; i++) out += next() < 0.25 ? SGRS[Math.floor(next() * SGRS.length)] : PIECES[Math.floor(next() * PIECES.length)];
    out += next() < 0.1 ? '\r\r\n' : '\r\n';
  }
  return out;
}

/** Measures line after line to the end, as a caller does before laying them out. */
function measureAll(plain: PlainLines, text: string): { end: number; rows: number } {
  let at = 0;
  let rows = 0;
  while (at < text.length) {
    const end = plain.measure(text, at);
    if (end < 0) break;
    rows += plain.rows;
    at = end;
  }
  return { end: at, rows };
}

describe('PlainLines', () => {
  it.each([10, 11, 80])('lays out plain lines as xterm.js keeps them, at %i columns', async (cols) => {
    const next = random(cols);
    for (let round = 0; round < 40; round++) {
      const input = randomLines(next, 30);
      const plain = plainLines(cols);
      const measured = measureAll(plain, input);
      expect(measured.end).toBe(input.length);
      const style: Style = { ...DEFAULT_STYLE };
      const rows: KeptRow[] = [];
      plain.layout(input, 0, input.length, style, into(rows));
      const reference = await xtermRows(input, cols);
      expect(rows).toEqual(reference.rows);
      expect(measured.rows).toBe(rows.length);
      expect(style).toEqual(reference.style);
    }
  });

  it('starts from the style a line begins in', async () => {
    const plain = plainLines(20);
    const style: Style = { fg: 0x1000000 | 3, bg: 0, attrs: 1 };
    const rows: KeptRow[] = [];
    plain.layout('ab\x1b[22mcd\r\n', 0, 12, style, into(rows));
    expect(rows).toEqual((await xtermRows('\x1b[1;33mab\x1b[22mcd\r\n', 20)).rows);
  });

  it('wraps a wide character that does not fit into the next row, the last column left blank', async () => {
    const plain = plainLines(5);
    const rows: KeptRow[] = [];
    const input = 'abcd日x\r\n';
    expect(plain.measure(input, 0)).toBe(input.length);
    expect(plain.rows).toBe(2);
    plain.layout(input, 0, input.length, { ...DEFAULT_STYLE }, into(rows));
    expect(rows).toEqual([
      { text: 'abcd', runs: [], wrapped: false },
      { text: '日x', runs: [], wrapped: true },
    ]);
    expect(rows).toEqual((await xtermRows(input, 5)).rows);
  });

  it('replays the SGR that leads from the starting style to the end one into a terminal', async () => {
    const next = random(7);
    for (let round = 0; round < 30; round++) {
      const input = randomLines(next, 5);
      const replay = sgrToReplay(input, 0, input.length);
      const reference = bottomTerminal(30);
      const replayed = bottomTerminal(30);
      await write(reference, input);
      await write(replayed, replay);
      const words = (term: Terminal) => {
        const attr = currentAttr(term);
        return [attr.fg, attr.bg, attr.extended.underlineStyle];
      };
      expect(words(replayed)).toEqual(words(reference));
      // Nothing but SGR sequences.
      expect(replay.replaceAll('\x1b[', '').replace(/[\d;m]/g, '')).toBe('');
    }
  });

  it('packs plain lines as they came and unpacks them as their rows, between rows packed as rows', async () => {
    const cols = 12;
    const plain = plainLines(cols);
    const width = terminalCharWidth(bottomTerminal(cols));
    const input = randomLines(random(3), 40);
    const measured = measureAll(plain, input);
    const style: Style = { fg: 0x1000000 | 5, bg: 0, attrs: 4 };
    const packer = new RowPacker();
    const before: KeptRow = { text: 'before', runs: [], wrapped: false };
    packer.addRow(before);
    packer.addPlain(`xx${input}yy`, 2, 2 + input.length, style, cols, measured.rows, 40);
    packer.addRow({ ...before, text: 'after' });
    expect([packer.rows, packer.starts]).toEqual([measured.rows + 2, 42]);
    const laid: KeptRow[] = [];
    plain.layout(input, 0, input.length, { ...style }, into(laid));
    expect(unpackRows(packer.view(), width)).toEqual([before, ...laid, { ...before, text: 'after' }]);
    expect(unpackTexts(packer.view(), width).map((row) => row.text)).toEqual(['before', ...laid.map((row) => row.text), 'after']);
    expect(() => unpackRows(packer.view())).toThrow(/no widths/);
    // A block whose plain lines do not lay out as the rows it counted is refused.
    const wrong = new RowPacker();
    wrong.addPlain(input, 0, input.length, style, cols, measured.rows + 1, 40);
    expect(() => unpackRows(wrong.view(), width)).toThrow(/lay out as/);
  });

  it.each([
    ['a tab', 'a\tb\r\n'],
    ['a line feed without a carriage return', 'ab\ncd\r\n'],
    ['a carriage return that overprints', 'ab\rcd\r\n'],
    ['a cursor move', 'ab\x1b[2Acd\r\n'],
    ['an erase', '\x1b[2Kab\r\n'],
    ['an OSC', '\x1b]0;title\x07ab\r\n'],
    ['an SGR with sub-parameters', '\x1b[4:3mab\r\n'],
    ['a colour form cut short', '\x1b[38;5mab\r\n'],
    ['a palette index past 255', '\x1b[38;5;300mab\r\n'],
    ['a colour space form', '\x1b[38;1;2mab\r\n'],
    ['a private SGR', '\x1b[?1mab\r\n'],
    ['a double underline', '\x1b[21mab\r\n'],
    ['an overline', '\x1b[1;53mab\r\n'],
    ['an overline ended', '\x1b[55mab\r\n'],
    ['an underline colour', '\x1b[58;5;3mab\r\n'],
    ['an underline colour ended', '\x1b[59mab\r\n'],
    ['a combining mark', 'e\u0301\r\n'],
    ['a zero-width joiner', 'a\u200db\r\n'],
    ['a soft hyphen', 'a\u00adb\r\n'],
    ['a lone surrogate', 'a\ud800b\r\n'],
    ['a C1 control', 'a\u009b1mb\r\n'],
    ['the bell', 'a\x07\r\n'],
  ])('leaves %s to the terminal', (_name, input) => {
    expect(plainLines(20).measure(input, 0)).toBe(NOT_PLAIN);
  });

  it.each([
    ['a line not ended', 'abc'],
    ['a carriage return at the end', 'abc\r\r'],
    ['an SGR not ended', 'ab\x1b[1'],
    ['an ESC at the end', 'ab\x1b'],
  ])('tells %s from one that is not plain', (_name, input) => {
    expect(plainLines(20).measure(input, 0)).toBe(UNFINISHED);
    expect(plainLines(20).measure(`${input}\t`, 0)).toBe(NOT_PLAIN);
  });
});
