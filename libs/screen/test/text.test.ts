import { sanitizeForDisplay } from '@paneflow/osc7501';
import { charWidth, DEFAULT_STYLE, displayWidth, Grid, paletteColor, sanitizeForGrid, writeText, type Style } from '../src';

const cyan: Style = { fg: paletteColor(6), bg: 0, attrs: 0 };

function row(grid: Grid, y = 0): string {
  let text = '';
  for (let x = 0; x < grid.cols; x++) {
    const cell = grid.cell(x, y);
    text += cell.width === 0 ? '_' : cell.chars || '.';
  }
  return text;
}

describe('charWidth', () => {
  test.each([
    ['ASCII', 'a', 1],
    ['Latin-1 letter', 'é', 1],
    ['CJK ideograph', '中', 2],
    ['CJK extension B (astral)', '\u{20000}', 2],
    ['Hiragana', 'あ', 2],
    ['Hangul syllable', '한', 2],
    ['fullwidth Latin', 'Ａ', 2],
    ['ideographic space', '\u3000', 2],
    ['emoji (astral)', '😀', 2],
    ['emoji (BMP, emoji presentation)', '⌚', 2],
    ['heart (text presentation)', '❤', 1],
    ['box drawing light horizontal', '─', 1],
    ['box drawing cross', '┼', 1],
    ['box drawing double', '╬', 1],
    ['block element', '▒', 1],
    ['Greek', 'Ω', 1],
    ['combining acute', '\u0301', 0],
    ['combining enclosing circle', '\u20dd', 0],
    ['variation selector 16', '\ufe0f', 0],
    ['zero width space', '\u200b', 0],
    ['zero width joiner', '\u200d', 0],
    ['Hangul medial vowel', '\u1161', 0],
    ['combining mark of the CJK block', '\u302a', 0],
    ['astral variation selector', '\u{e0100}', 0],
    ['private use', '\ue000', 1],
  ])('%s %p is %i', (_name, text, width) => {
    expect(charWidth(text.codePointAt(0)!)).toBe(width);
  });
});

describe('sanitizeForGrid', () => {
  test('C0 controls and DEL become caret notation, C1 controls U+FFFD', () => {
    expect(sanitizeForGrid('a\x1b[31mb\x07c\x7fd\x00')).toBe('a^[[31mb^Gc^?d^@');
    expect(sanitizeForGrid('x\x9b31my\x85')).toBe('x\ufffd31my\ufffd');
    expect(sanitizeForGrid('tab\there\r\n')).toBe('tab^Ihere^M^J');
  });

  test('the line and paragraph separators, which break lines as LF does, become U+FFFD', () => {
    expect(sanitizeForGrid('one\u2028two\u2029three')).toBe('one\ufffdtwo\ufffdthree');
  });

  test('bidi overrides, isolates and invisible format characters are removed', () => {
    expect(sanitizeForGrid('a\u202eevil\u202c\u2066b\u2069\u200bc\u00add\ufeff')).toBe('aevilbcd');
  });

  test('removes exactly what sanitizeForDisplay of @paneflow/osc7501 removes', () => {
    const printable: string[] = [];
    for (let code = 0xa0; code < 0x30000; code++) if ((code < 0xd800 || code > 0xdfff) && code !== 0x2028 && code !== 0x2029) printable.push(String.fromCodePoint(code));
    const all = printable.join('');
    expect(sanitizeForGrid(all)).toBe(sanitizeForDisplay(all));
  });

  test('lone surrogates become U+FFFD, pairs stay', () => {
    expect(sanitizeForGrid('a\ud800b\udc00c😀')).toBe('a\ufffdb\ufffdc😀');
  });
});

describe('displayWidth', () => {
  test('counts wide characters twice, marks not at all, and escapes as shown', () => {
    expect(displayWidth('abc')).toBe(3);
    expect(displayWidth('中文')).toBe(4);
    expect(displayWidth('e\u0301')).toBe(1);
    expect(displayWidth('😀 ok')).toBe(5);
    expect(displayWidth('\x1b')).toBe(2);
    expect(displayWidth('\u202e')).toBe(0);
  });
});

describe('writeText', () => {
  test('writes in the style and returns the columns taken', () => {
    const grid = new Grid(10, 1);
    expect(writeText(grid, 1, 0, 'a中b', cyan)).toBe(4);
    expect(row(grid)).toBe('.a中_b.....');
    expect(grid.cell(2, 0).fg).toBe(cyan.fg);
    expect(grid.cell(3, 0)).toMatchObject({ width: 0, fg: cyan.fg });
  });

  test('combining marks join the character before them; a mark with none sits on a dotted circle', () => {
    const grid = new Grid(6, 1);
    expect(writeText(grid, 0, 0, 'e\u0301\u0323中\u0301', DEFAULT_STYLE)).toBe(3);
    expect(grid.chars(0, 0)).toBe('e\u0301\u0323');
    expect(grid.chars(1, 0)).toBe('中\u0301');
    expect(writeText(grid, 4, 0, '\u0301x', DEFAULT_STYLE)).toBe(2);
    expect(grid.chars(4, 0)).toBe('\u25cc\u0301');
    expect(grid.chars(5, 0)).toBe('x');
  });

  test('is clipped to maxWidth by display width; a wide character that does not fit leaves a blank', () => {
    const grid = new Grid(10, 1);
    expect(writeText(grid, 0, 0, 'ab中文', cyan, { maxWidth: 3 })).toBe(3);
    expect(row(grid)).toBe('ab........');
    expect(grid.cell(2, 0).fg).toBe(cyan.fg);
  });

  test('is clipped to the grid', () => {
    const grid = new Grid(4, 1);
    expect(writeText(grid, 2, 0, 'abcdef', DEFAULT_STYLE)).toBe(2);
    expect(row(grid)).toBe('..ab');
    expect(writeText(grid, -1, 0, 'xyz', DEFAULT_STYLE)).toBe(2);
    expect(row(grid)).toBe('yzab');
    expect(writeText(grid, 0, 1, 'off the grid', DEFAULT_STYLE)).toBe(0);
  });

  test('ends with the ellipsis only when the text does not fit', () => {
    const grid = new Grid(8, 2);
    writeText(grid, 0, 0, 'a long agent name', DEFAULT_STYLE, { maxWidth: 6, ellipsis: '…' });
    expect(row(grid, 0)).toBe('a lon…..');
    writeText(grid, 0, 1, 'short', DEFAULT_STYLE, { maxWidth: 6, ellipsis: '…' });
    expect(row(grid, 1)).toBe('short...');
    const wide = new Grid(8, 1);
    writeText(wide, 0, 0, '中文字符', DEFAULT_STYLE, { maxWidth: 6, ellipsis: '…' });
    expect(row(wide)).toBe('中_文_…...');
    expect(wide.cell(5, 0).width).toBe(1);
    // The wide character that does not fit before the ellipsis leaves a blank after it, in the style.
    const cut = new Grid(8, 1);
    writeText(cut, 0, 0, 'abc中文', cyan, { maxWidth: 5, ellipsis: '…' });
    expect(row(cut)).toBe('abc…....');
    expect(cut.cell(4, 0).fg).toBe(cyan.fg);
    expect(cut.cell(5, 0).fg).toBe(0);
  });

  test('control characters never reach a cell', () => {
    const grid = new Grid(12, 1);
    writeText(grid, 0, 0, 'a\x1b]0;x\x07\x9b', DEFAULT_STYLE);
    expect(row(grid)).toBe('a^[]0;x^G\ufffd..');
  });
});
