// The contract with @xterm/headless's private fields (src/xterm-internals.ts): a real Terminal is
// driven into each state the host, the deep store and attach read past the public API, and each
// accessor must say what that state is. When an xterm upgrade moves a field, this fails first.
import { Unicode11Addon } from '@xterm/addon-unicode11';
import { Terminal } from '@xterm/headless';
import { cellStyle } from '../src/pane';
import { Attr, DEFAULT_STYLE, paletteColor } from '../src/style';
import {
  cellWords,
  charsetActive,
  CONTENT_CODE_POINT,
  CONTENT_IS_COMBINED,
  CONTENT_WIDTH_SHIFT,
  currentAttr,
  cursorModes,
  followRow,
  lineWords,
  mouseEncoding,
  parserInGround,
  replaceLine,
  scrollRegion,
  terminalCharWidth,
  writeSync,
} from '../src/xterm-internals';

const COLS = 12;
const ROWS = 6;
const ESC = '\x1b';

let term: Terminal;
beforeEach(() => {
  term = new Terminal({ cols: COLS, rows: ROWS, scrollback: 10, allowProposedApi: true });
});
afterEach(() => term.dispose());

const lineText = (y: number) => term.buffer.active.getLine(y)!.translateToString(true);

test('writeSync parses text and bytes at once, where the public write waits for a timer', () => {
  term.write('ab');
  expect(lineText(0)).toBe('');
  // What the public write queued first, then this, in order.
  writeSync(term, ' cd');
  expect(lineText(0)).toBe('ab cd');
  writeSync(term, new TextEncoder().encode(' é中'));
  expect(lineText(0)).toBe('ab cd é中');
});

test("terminalCharWidth measures with the terminal's active Unicode version, switched after it was taken", () => {
  const width = terminalCharWidth(term);
  expect([width(0x61), width(0x4e2d), width(0x301), width(0x1f600)]).toEqual([1, 2, 0, 1]);
  term.loadAddon(new Unicode11Addon());
  term.unicode.activeVersion = '11';
  expect(width(0x1f600)).toBe(2);
});

test('parserInGround is true between sequences only: not inside a CSI, an OSC or after a lone ESC', () => {
  expect(parserInGround(term)).toBe(true);
  writeSync(term, `${ESC}[3`);
  expect(parserInGround(term)).toBe(false);
  writeSync(term, '1mred');
  expect(parserInGround(term)).toBe(true);
  writeSync(term, `${ESC}]0;a tit`);
  expect(parserInGround(term)).toBe(false);
  writeSync(term, 'le\x07');
  expect(parserInGround(term)).toBe(true);
  writeSync(term, ESC);
  expect(parserInGround(term)).toBe(false);
  writeSync(term, 'c');
  expect(parserInGround(term)).toBe(true);
});

test('currentAttr is the live SGR state: style, colour words as cells get them, overline, underline style and colour', () => {
  const attr = currentAttr(term);
  expect(cellStyle(attr)).toEqual(DEFAULT_STYLE);
  writeSync(term, `${ESC}[1;31;44m`);
  expect(cellStyle(currentAttr(term))).toEqual({ fg: paletteColor(1), bg: paletteColor(4), attrs: Attr.bold });
  // Live: the object taken before the SGR reads it too.
  expect(cellStyle(attr)).toEqual(cellStyle(currentAttr(term)));
  writeSync(term, 'x');
  const cell = term.buffer.active.getLine(0)!.getCell(0)!;
  expect([cellWords(cell).fg, cellWords(cell).bg]).toEqual([attr.fg, attr.bg]);
  expect(attr.isOverline()).toBeFalsy();
  expect(attr.extended.underlineStyle).toBe(0);
  writeSync(term, `${ESC}[53m${ESC}[4:3m${ESC}[58;5;9m`);
  expect(attr.isOverline()).toBeTruthy();
  expect(attr.extended.underlineStyle).toBe(3);
  expect(attr.extended.underlineColor).not.toBe(0);
  writeSync(term, `${ESC}[0m`);
  expect(cellStyle(attr)).toEqual(DEFAULT_STYLE);
  expect([attr.isOverline(), attr.extended.underlineStyle, attr.extended.underlineColor]).toEqual([0, 0, 0]);
});

test('charsetActive follows a designated character set (DEC graphics) and its end', () => {
  expect(charsetActive(term)).toBe(false);
  writeSync(term, `${ESC}(0`);
  expect(charsetActive(term)).toBe(true);
  writeSync(term, 'q');
  expect(lineText(0)).toBe('─');
  writeSync(term, `${ESC}(B`);
  expect(charsetActive(term)).toBe(false);
});

test("scrollRegion is the active buffer's DECSTBM margins, from 0", () => {
  expect(scrollRegion(term)).toEqual({ top: 0, bottom: ROWS - 1 });
  writeSync(term, `${ESC}[2;5r`);
  expect(scrollRegion(term)).toEqual({ top: 1, bottom: 4 });
  writeSync(term, `${ESC}[?1049h`);
  expect(scrollRegion(term)).toEqual({ top: 0, bottom: ROWS - 1 });
  writeSync(term, `${ESC}[?1049l${ESC}[r`);
  expect(scrollRegion(term)).toEqual({ top: 0, bottom: ROWS - 1 });
});

test("cursorModes follows DECTCEM and DECSCUSR, which the public modes and options do not", () => {
  expect(cursorModes(term)).toEqual({ hidden: false, style: undefined, blink: false });
  writeSync(term, `${ESC}[?25l`);
  expect(cursorModes(term).hidden).toBe(true);
  const shapes: Array<[number, ReturnType<typeof cursorModes>['style'], boolean]> = [
    [1, 'block', true],
    [2, 'block', false],
    [3, 'underline', true],
    [4, 'underline', false],
    [5, 'bar', true],
    [6, 'bar', false],
    [0, undefined, false],
  ];
  for (const [param, style, blink] of shapes) {
    writeSync(term, `${ESC}[${param} q`);
    expect([param, cursorModes(term).style, cursorModes(term).blink]).toEqual([param, style, blink]);
  }
  expect(term.options.cursorStyle).toBe('block');
  writeSync(term, `${ESC}[?25h`);
  expect(cursorModes(term).hidden).toBe(false);
});

test('mouseEncoding follows ?1006 and ?1016, which the public modes do not', () => {
  expect(mouseEncoding(term)).toBe('default');
  writeSync(term, `${ESC}[?1000h${ESC}[?1006h`);
  expect([term.modes.mouseTrackingMode, mouseEncoding(term)]).toEqual(['vt200', 'sgr']);
  writeSync(term, `${ESC}[?1016h`);
  expect(mouseEncoding(term)).toBe('sgr_pixels');
  writeSync(term, `${ESC}[?1016l`);
  expect(mouseEncoding(term)).toBe('default');
});

test('lineWords reads a line as three words a cell: code points, widths, combined text, colours', () => {
  term.loadAddon(new Unicode11Addon());
  term.unicode.activeVersion = '11';
  writeSync(term, `a${ESC}[32m中e\u0301😀`);
  const line = term.buffer.active.getLine(0)!;
  const words = lineWords(line)!;
  expect(words.length).toBe(COLS);
  const cells = Array.from({ length: 6 }, (_, x) => {
    const content = words.data[3 * x];
    return { codePoint: content & CONTENT_CODE_POINT, combined: (content & CONTENT_IS_COMBINED) !== 0, width: content >> CONTENT_WIDTH_SHIFT };
  });
  expect(cells).toEqual([
    { codePoint: 0x61, combined: false, width: 1 },
    { codePoint: 0x4e2d, combined: false, width: 2 },
    { codePoint: 0, combined: false, width: 0 },
    { codePoint: 0, combined: true, width: 1 },
    { codePoint: 0x1f600, combined: false, width: 2 },
    { codePoint: 0, combined: false, width: 0 },
  ]);
  expect(words.combined[3]).toBe('e\u0301');
  expect(words.data[3 * 1 + 1]).toBe(currentAttr(term).fg);
  expect(words.data[3 * 0 + 1]).not.toBe(words.data[3 * 1 + 1]);
  // The same words as a cell object loaded from the line carries.
  const cell = line.getCell(4)!;
  expect([cellWords(cell).content, cellWords(cell).fg, cellWords(cell).bg]).toEqual([words.data[12], words.data[13], words.data[14]]);
  // Any other line (one of the caller's own) has none.
  expect(lineWords({ isWrapped: false, length: COLS })).toBeUndefined();
});

test('insert mode and autowrap need no accessor: the public modes carry them', () => {
  expect([term.modes.insertMode, term.modes.wraparoundMode]).toEqual([false, true]);
  writeSync(term, `${ESC}[4h${ESC}[?7l`);
  expect([term.modes.insertMode, term.modes.wraparoundMode]).toEqual([true, false]);
});

test('followRow keeps its place as rows are erased, deleted, inserted, trimmed and reflowed, where a marker moves or is disposed', () => {
  const normal = () => term.buffer.normal;
  const texts = (t: Terminal) => Array.from({ length: t.buffer.normal.length }, (_, y) => t.buffer.normal.getLine(y)!.translateToString(true));
  writeSync(term, Array.from({ length: 10 }, (_, i) => `r${i}`).join('\r\n')); // r0..r9, the screen from r4
  const followed = followRow(term, 5);
  const marker = term.registerMarker(5 - normal().baseY - normal().cursorY)!;
  expect([texts(term)[followed.line], texts(term)[marker.line]]).toEqual(['r5', 'r5']);
  // An erase of its row (ED 2): the marker goes, the followed row stays.
  writeSync(term, `${ESC}[H${ESC}[2J`);
  expect(marker.isDisposed).toBe(true);
  expect(followed.line).toBe(5);
  // DL above it moves it up with its row; DL of its own row leaves it where the row was.
  writeSync(term, `${ESC}[1;1H${ESC}[2M`);
  expect(followed.line).toBe(4);
  // IL at its row keeps its place (the new rows are below it); IL above it moves it down.
  writeSync(term, `${ESC}[1;1H${ESC}[2L`);
  expect(followed.line).toBe(4);
  followed.dispose();
  const below = followRow(term, 6);
  writeSync(term, `${ESC}[1;1H${ESC}[1L`);
  expect(below.line).toBe(7);
  below.dispose();
  // The scrollback trimmed (it keeps 10 rows): once its row is gone, it stands at row 0.
  const trimmed = followRow(term, 4);
  writeSync(term, `${ESC}[6;1H` + 'x\r\n'.repeat(12));
  expect(trimmed.line).toBe(0);
  trimmed.dispose();
  // A reflow that splits rows (a narrower terminal) moves it down by the rows added above it; the
  // row added to the line just above it is inserted at its place, so it then stands on that.
  const narrow = new Terminal({ cols: 4, rows: 3, scrollback: 10, allowProposedApi: true });
  writeSync(narrow, 'abcd\r\nefgh\r\nijkl\r\nmn');
  const onIjkl = followRow(narrow, 2);
  narrow.resize(2, 3);
  expect([texts(narrow)[onIjkl.line], narrow.buffer.normal.getLine(onIjkl.line)!.isWrapped]).toEqual(['gh', true]);
  expect(texts(narrow)[onIjkl.line + 1]).toBe('ij');
  // Placed while the alternate buffer is shown: on the normal buffer's row, where a marker cannot be.
  writeSync(narrow, `${ESC}[?1049h`);
  expect(narrow.registerMarker(0)).toBeUndefined();
  const whileAlternate = followRow(narrow, 1);
  writeSync(narrow, `x${ESC}[?1049l`);
  expect(texts(narrow)[whileAlternate.line]).toBe('cd');
  onIjkl.dispose();
  whileAlternate.dispose();
  narrow.dispose();
});

test('replaceLine puts another terminal’s row in place of one, its cells, styles and wide characters, with the wrap flag given', () => {
  writeSync(term, 'old row one\r\nold row two');
  const other = new Terminal({ cols: COLS, rows: ROWS, allowProposedApi: true });
  other.loadAddon(new Unicode11Addon());
  other.unicode.activeVersion = '11';
  writeSync(other, `${ESC}[1;31mred${ESC}[0m 日本`);
  replaceLine(term.buffer.normal.getLine(1)!, other.buffer.normal.getLine(0)!, true);
  const line = term.buffer.normal.getLine(1)!;
  expect([lineText(0), lineText(1), line.isWrapped]).toEqual(['old row one', 'red 日本', true]);
  expect(cellStyle(line.getCell(0)!)).toEqual({ ...DEFAULT_STYLE, fg: paletteColor(1), attrs: Attr.bold });
  expect([line.getCell(4)!.getWidth(), line.getCell(5)!.getWidth()]).toEqual([2, 0]);
  // A copy: the other terminal's row changing later changes nothing here.
  writeSync(other, `${ESC}[1;1Hxxx`);
  expect(lineText(1)).toBe('red 日本');
  replaceLine(term.buffer.normal.getLine(1)!, other.buffer.normal.getLine(1)!, false);
  expect([lineText(1), term.buffer.normal.getLine(1)!.isWrapped]).toEqual(['', false]);
  other.dispose();
});
