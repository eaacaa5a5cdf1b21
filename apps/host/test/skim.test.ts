// The canonical terminal skims a flood's plain lines (straight to its deep store, never parsed)
// and holds back the last screen's worth: in process, it must read, search, keep and redraw
// exactly what the same terminal does when it parses every byte, whatever the output and however
// the PTY cuts it.
import { Unicode11Addon } from '@xterm/addon-unicode11';
import { Terminal } from '@xterm/headless';
import { keepRow, writeSync, type KeptLine, type KeptRow } from '@paneflow/screen';
import { READ_LINES_MAX } from '@paneflow/protocol';
import { CanonicalTerminal, type TerminalEvents } from '../src/terminal';

const COLS = 40;
const ROWS = 10;
const SCROLLBACK = 100_000;

/** The same terminal with skimming off: every byte parsed, as before skimming. */
class ParsingTerminal extends CanonicalTerminal {}
Object.defineProperty(ParsingTerminal.prototype, 'readyToSkim', { value: () => false });

const skims = jest.spyOn(CanonicalTerminal.prototype as unknown as { skim(): void }, 'skim');

function terminals() {
  // Only the replies matter here: nothing else the terminal tells depends on skimming.
  const ignored = () => undefined;
  const events = (replies: string[]): TerminalEvents => ({
    recordsChanged: ignored,
    signalled: ignored,
    marked: ignored,
    title: ignored,
    reply: (data) => replies.push(String(data)),
  });
  const replies = { skimming: [] as string[], parsing: [] as string[] };
  return {
    skimming: new CanonicalTerminal(COLS, ROWS, SCROLLBACK, events(replies.skimming)),
    parsing: new ParsingTerminal(COLS, ROWS, SCROLLBACK, events(replies.parsing)),
    replies,
  };
}

/** A seeded generator, so a failure repeats. */
function random(seed: number): () => number {
  return () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x80000000;
  };
}

const WORDS = ['build', 'ok', ' ', '  ', 'src/app.ts', '日本語', '😀', '✓', 'é', '│', 'passed', '(3.2 s)'];
const SGRS = ['\x1b[m', '\x1b[0m', '\x1b[1m', '\x1b[1;36m', '\x1b[2m', '\x1b[22m', '\x1b[4m', '\x1b[24m', '\x1b[7m', '\x1b[31m', '\x1b[92m', '\x1b[39m', '\x1b[38;5;208m', '\x1b[48;2;1;2;3m', '\x1b[49m'];
/** Output that is not plain: each changes what comes after it, or the screen, or the buffer. */
const NOT_PLAIN = [
  'a\tb\r\n',
  'bare\nfeed\r\n',
  '50%\r60%\r100%\r\n',
  '\x1b[3Aup\x1b[3B\r\n',
  '\x1b[2J\x1b[H',
  '\x1b[K',
  '\x1b[3;6r\x1b[6Hregion\r\n\r\n\x1b[r',
  '\x1b[?1049halt screen\r\n\x1b[?1049l',
  'e\u0301\r\n',
  '\x1b]0;title\x07',
  '\x1b[4hins\x1b[4l\r\n',
  '\x1b[?7l' + 'x'.repeat(60) + '\x1b[?7h\r\n',
  '\x1b(0lqqk\x1b(B\r\n',
  '\x1b]8;;https://example.com\x07link\x1b]8;;\x07\r\n',
  '\x1b[5;1H',
  '\x1b[3J',
  '\x1b[6n',
  '\x1b[4:3mcurly\x1b[4:0m\r\n',
  '\x1b[53mover\x1b[55m \x1b[4;58;5;1mul\x1b[0m\r\n',
  '\x1b[21mdouble\x1b[24m\r\n',
  // States the next plain line must not be skimmed from: over a row with text, on a row that
  // continues the one above, in DEC graphics, below a scroll region.
  'overprinted\r',
  'x'.repeat(COLS + 1) + '\b\x1b[K',
  '\x1b(0',
  '\x1b(B',
  `\x1b[3;6r\x1b[${ROWS}H`,
  '\x1b[r',
];

function output(next: () => number, lines: number, plainShare: number): string {
  let out = '';
  for (let line = 0; line < lines; line++) {
    if (next() > plainShare) {
      out += NOT_PLAIN[Math.floor(next() * NOT_PLAIN.length)];
      continue;
    }
    const length = next() < 0.15 ? Math.floor(next() * 40) : Math.floor(next() * 8);
    for (let i = 0; i < length; i++) out += next() < 0.2 ? SGRS[Math.floor(next() * SGRS.length)] : WORDS[Math.floor(next() * WORDS.length)];
    out += '\r\n';
  }
  return out;
}

/** Hands `data` over in pieces cut anywhere (mid-line, mid-sequence), as PTY reads are. */
function feed(terminal: CanonicalTerminal, data: string, next: () => number) {
  for (let at = 0; at < data.length; ) {
    const size = next() < 0.5 ? 1 + Math.floor(next() * 200) : 1 + Math.floor(next() * 20_000);
    const piece = data.slice(at, at + size);
    terminal.write(piece, Buffer.byteLength(piece));
    at += size;
  }
}

/** A cell as xterm holds it, whole: its characters, width, colour and attribute words, underline style and colour, link. */
interface XtermCell {
  getChars(): string;
  getWidth(): number;
  fg: number;
  bg: number;
  extended: { underlineStyle: number; underlineColor: number; urlId: number };
}

/** The last `count` rows a terminal holds, every cell whole (a background painted past the text too), and the cursor. */
function rowsOf(term: Terminal, count: number): string[] {
  const buffer = term.buffer.active;
  const cell = buffer.getNullCell() as unknown as XtermCell;
  const rows = [`cursor ${buffer.cursorX},${buffer.cursorY}`];
  for (let y = buffer.length - count; y < buffer.length; y++) {
    const line = buffer.getLine(y)!;
    const cells: string[] = [];
    for (let x = 0; x < term.cols; x++) {
      line.getCell(x, cell as never);
      const { underlineStyle, underlineColor, urlId } = cell.extended;
      cells.push([cell.getChars(), cell.getWidth(), cell.fg, cell.bg, underlineStyle, underlineColor, urlId].join('|'));
    }
    rows.push(`${line.isWrapped ? '+' : ' '}${cells.join(' ')}`);
  }
  return rows;
}

/** What the terminal's xterm holds itself: the screen and the rows of its scrollback not moved to the store. */
function own(terminal: CanonicalTerminal): { term: Terminal; rows: number } {
  const inside = terminal as unknown as { term: Terminal; deep: { firstUnarchived(): number } };
  const buffer = inside.term.buffer.active;
  return { term: inside.term, rows: buffer.type === 'normal' ? buffer.length - inside.deep.firstUnarchived() : buffer.length };
}

/** The rows both terminals' xterms hold themselves (skimming moves rows to the store sooner), cell by cell. */
function expectSameOwnRows(skimming: CanonicalTerminal, parsing: CanonicalTerminal) {
  const a = own(skimming);
  const b = own(parsing);
  const count = Math.min(a.rows, b.rows);
  expect(count).toBeGreaterThanOrEqual(ROWS);
  expect(rowsOf(a.term, count)).toEqual(rowsOf(b.term, count));
}

/**
 * Every row a checkpoint redraws, with its kept style, and the cursor: what a mirror shows. (Not
 * every cell whole: xterm's serializer spells some styles and painted blanks differently by
 * where it starts, which moves with the rows in the store.)
 */
function replayed(checkpoint: string): { rows: KeptRow[]; cursor: [number, number] } {
  const term = new Terminal({ cols: COLS, rows: ROWS, scrollback: SCROLLBACK, allowProposedApi: true });
  term.loadAddon(new Unicode11Addon());
  term.unicode.activeVersion = '11';
  writeSync(term, checkpoint);
  const buffer = term.buffer.active;
  const cell = buffer.getNullCell();
  const rows: KeptRow[] = [];
  for (let y = 0; y < buffer.length; y++) rows.push(keepRow(buffer.getLine(y) as unknown as KeptLine, cell));
  const cursor: [number, number] = [buffer.cursorX, buffer.baseY + buffer.cursorY];
  term.dispose();
  return { rows, cursor };
}

function expectSame(skimming: CanonicalTerminal, parsing: CanonicalTerminal) {
  const all = parsing.read(READ_LINES_MAX);
  expect(skimming.read(READ_LINES_MAX)).toEqual(all);
  const offset = Math.floor(all.total_lines / 3);
  expect(skimming.read(50, offset)).toEqual(parsing.read(50, offset));
  for (const needle of ['passed', '日本', 'link', 'region']) expect(skimming.search(needle, 1000)).toEqual(parsing.search(needle, 1000));
  expect(skimming.finalText(64 * 1024)).toBe(parsing.finalText(64 * 1024));
  const a = skimming.checkpoint(Infinity, 1 << 30);
  const b = parsing.checkpoint(Infinity, 1 << 30);
  expect({ ...a, checkpoint: undefined }).toEqual({ ...b, checkpoint: undefined });
  expectSameOwnRows(skimming, parsing);
  expect(replayed(a.checkpoint)).toEqual(replayed(b.checkpoint));
  expect(skimming.modes).toEqual(parsing.modes);
}

describe('skimming plain lines', () => {
  beforeEach(() => skims.mockClear());

  it.each([
    ['a flood of plain lines', 1, 1.0],
    ['plain lines with other output among them', 2, 0.97],
    ['output mostly not plain', 3, 0.6],
  ])('keeps %s exactly as parsing every byte does', (_name, seed, plainShare) => {
    const next = random(seed);
    const { skimming, parsing, replies } = terminals();
    for (let round = 0; round < 4; round++) {
      const data = output(next, 3000, plainShare);
      const cuts = random(seed * 100 + round);
      feed(skimming, data, cuts);
      feed(parsing, data, random(seed * 100 + round));
      expectSame(skimming, parsing);
    }
    expect(replies.skimming).toEqual(replies.parsing);
    if (plainShare > 0.9) expect(skims).toHaveBeenCalled();
    skimming.dispose();
    parsing.dispose();
  });

  // Each state ends a write, after a line that is not plain: the next write's first look at
  // skimming starts there, and must not.
  it.each([
    ['over a row with text', 'overprinted\x1b[G'],
    ['on a row that continues the one above', 'x'.repeat(COLS + 1) + '\b\x1b[1K'],
    ['in DEC graphics', '\x1b(0'],
    ['below a scroll region', `\x1b[3;6r\x1b[${ROWS}H`],
    ['above the bottom row', 'a longer last row\x1b[A\r\x1b[2K'],
    ['below a scroll region from the top', `\x1b[1;6r\x1b[${ROWS}H`],
    ['in a scroll region that ends at the bottom', `\x1b[3;${ROWS}r\x1b[${ROWS}H`],
    ['on the alternate screen', '\x1b[?1049h\x1b[H' + '\r\n'.repeat(ROWS)],
    ['with autowrap off', '\x1b[?7l'],
    ['in insert mode', '\x1b[4h'],
    ['inside a link', '\x1b]8;;https://example.com\x07'],
  ])('does not skim %s', (_name, state) => {
    const plain = (from: number) => Array.from({ length: 200 }, (_, i) => `line ${from + i} ${'='.repeat(i % 50)}\r\n`).join('');
    const { skimming, parsing } = terminals();
    for (const terminal of [skimming, parsing]) {
      for (const data of [plain(0), 'not\tplain\r\n', state, plain(200)]) terminal.write(data, Buffer.byteLength(data));
    }
    expectSame(skimming, parsing);
  });

  // States that last: nothing is skimmed while they do, so no row is stored sooner without what
  // a kept row cannot hold.
  it.each([
    ['DEC graphics', '\x1b(0'],
    ['a scroll region', '\x1b[1;6r\x1b[6H'],
    ['a scroll region that ends at the bottom', `\x1b[3;${ROWS}r\x1b[${ROWS}H`],
    ['the alternate screen', '\x1b[?1049h'],
    ['autowrap off', '\x1b[?7l'],
    ['insert mode', '\x1b[4h'],
    ['a link', '\x1b]8;;https://example.com\x07'],
    ['an overline', '\x1b[53m'],
    ['an underline colour', '\x1b[4;58;5;2m'],
    ['a double underline', '\x1b[21m'],
  ])('skims nothing while %s lasts', (_name, state) => {
    const plain = Array.from({ length: 200 }, (_, i) => `line ${i}\r\n`).join('');
    const { skimming, parsing } = terminals();
    for (const terminal of [skimming, parsing]) for (const data of [state, plain]) terminal.write(data, Buffer.byteLength(data));
    expect(skims).not.toHaveBeenCalled();
    expectSame(skimming, parsing);
  });

  it.each([
    ['a background painted past the text', (i: number) => `\x1b[44mblue ${i}\r\n`, (i: number) => `${i === 0 ? '\x1b[0m' : ''}plain ${i}\r\n`],
    ['a background painted up to the lines kept', (i: number) => `plain ${i}\r\n`, (i: number) => `\x1b[4${i % 8}mcolour ${i}\r\n`],
    ['overlines and underline colours', (i: number) => `x ${i}\r\n`, (i: number) => `\x1b[53mover ${i}\x1b[0m \x1b[4;58;5;1mul\x1b[0m\r\n`],
  ])('keeps %s as parsing does', (_name, first, second) => {
    const { skimming, parsing } = terminals();
    const lines = (line: (i: number) => string) => Array.from({ length: 30 }, (_, i) => line(i)).join('');
    for (const terminal of [skimming, parsing]) {
      for (const data of [lines(first), lines(second)]) terminal.write(data, Buffer.byteLength(data));
    }
    expectSame(skimming, parsing);
  });

  // Only the width changes, so the cursor stays on the bottom row and skimming goes on after; the
  // lines held back at the resize wrap at the old width and not at the new one.
  it('parses what it held back before a resize, at the width it was printed at', () => {
    const { skimming, parsing } = terminals();
    const wrapping = Array.from({ length: ROWS }, (_, i) => `${String(i).padEnd(COLS + 5, '~')}\r\n`).join('');
    for (const terminal of [skimming, parsing]) {
      feed(terminal, output(random(4), 500, 1), random(5));
      terminal.write(wrapping, Buffer.byteLength(wrapping));
      terminal.resize(COLS + 13, ROWS);
      feed(terminal, output(random(6), 500, 1), random(7));
    }
    expect(skims).toHaveBeenCalled();
    expectSame(skimming, parsing);
  });
});
