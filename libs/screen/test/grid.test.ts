import { Attr, colorKind, colorValue, DEFAULT_STYLE, Grid, paletteColor, rgbColor, type Style } from '../src';

const red: Style = { fg: paletteColor(1), bg: rgbColor(0, 0, 64), attrs: Attr.bold | Attr.underline };

/** Row y as one string: each cell's chars, '.' for a blank and '_' for a right half. */
function row(grid: Grid, y: number): string {
  let text = '';
  for (let x = 0; x < grid.cols; x++) {
    const cell = grid.cell(x, y);
    text += cell.width === 0 ? '_' : cell.chars || '.';
  }
  return text;
}

describe('colours', () => {
  test('default, palette and 24-bit colours are told apart and keep their values', () => {
    expect(colorKind(DEFAULT_STYLE.fg)).toBe('default');
    expect(colorKind(paletteColor(0))).toBe('palette');
    expect(colorValue(paletteColor(0))).toBe(0);
    expect(colorValue(paletteColor(255))).toBe(255);
    expect(colorKind(rgbColor(0, 0, 0))).toBe('rgb');
    expect(colorValue(rgbColor(0x12, 0x34, 0x56))).toBe(0x123456);
    expect(paletteColor(0)).not.toBe(DEFAULT_STYLE.fg);
  });

  test('out-of-range colours are refused', () => {
    expect(() => paletteColor(256)).toThrow(RangeError);
    expect(() => paletteColor(-1)).toThrow(RangeError);
    expect(() => rgbColor(0, 256, 0)).toThrow(RangeError);
    expect(() => rgbColor(0.5, 0, 0)).toThrow(RangeError);
  });
});

describe('a grid', () => {
  test('starts blank in the default style and keeps what is written with its style', () => {
    const grid = new Grid(4, 2);
    expect(grid.cell(3, 1)).toEqual({ chars: '', width: 1, fg: 0, bg: 0, attrs: 0 });
    grid.setCell(1, 0, 'x', red);
    expect(grid.cell(1, 0)).toEqual({ chars: 'x', width: 1, fg: red.fg, bg: red.bg, attrs: red.attrs });
    grid.setCell(2, 1, '😀', red);
    expect(grid.cell(2, 1)).toMatchObject({ chars: '😀', width: 2 });
  });

  test('keeps every attribute bit, the top one included', () => {
    const grid = new Grid(2, 1);
    const all = Object.values(Attr).reduce((bits, bit) => bits | bit, 0);
    grid.setCell(0, 0, 'a', { ...DEFAULT_STYLE, attrs: all });
    expect(grid.cell(0, 0).attrs).toBe(255);
    grid.setCell(1, 0, 'b', { ...DEFAULT_STYLE, attrs: Attr.strikethrough });
    expect(grid.cell(1, 0).attrs).toBe(Attr.strikethrough);
  });

  test('a wide character takes its cell and a right half in the same style', () => {
    const grid = new Grid(5, 1);
    grid.setCell(1, 0, '中', red);
    expect(row(grid, 0)).toBe('.中_..');
    expect(grid.cell(2, 0)).toEqual({ chars: '', width: 0, fg: red.fg, bg: red.bg, attrs: red.attrs });
  });

  test('writing over either half of a wide character blanks the other half, in its style', () => {
    const grid = new Grid(6, 1);
    grid.setCell(0, 0, '中', red);
    grid.setCell(2, 0, '文', red);
    grid.setCell(1, 0, 'a', DEFAULT_STYLE);
    expect(row(grid, 0)).toBe('.a文_..');
    expect(grid.cell(0, 0)).toEqual({ chars: '', width: 1, fg: red.fg, bg: red.bg, attrs: red.attrs });
    grid.setCell(2, 0, 'b', DEFAULT_STYLE);
    expect(row(grid, 0)).toBe('.ab...');
  });

  test('a wide character written over the left half of another blanks that one', () => {
    const grid = new Grid(6, 1);
    grid.setCell(2, 0, '文', red);
    grid.setCell(1, 0, '中', DEFAULT_STYLE);
    expect(row(grid, 0)).toBe('.中_...');
  });

  test('a wide character does not fit in the last column and leaves a blank in its style', () => {
    const grid = new Grid(3, 1);
    grid.setCell(2, 0, '中', red);
    expect(grid.cell(2, 0)).toEqual({ chars: '', width: 1, fg: red.fg, bg: red.bg, attrs: red.attrs });
  });

  test('a cell with combining marks keeps them all, and loses them when overwritten', () => {
    const grid = new Grid(3, 1);
    grid.setCell(0, 0, 'e\u0301\u0323', DEFAULT_STYLE);
    grid.setCell(1, 0, '中\u0301', DEFAULT_STYLE);
    expect(grid.chars(0, 0)).toBe('e\u0301\u0323');
    expect(grid.chars(1, 0)).toBe('中\u0301');
    expect(grid.clusters.size).toBe(2);
    grid.setCell(0, 0, 'f', DEFAULT_STYLE);
    grid.setCell(2, 0, 'g', DEFAULT_STYLE);
    expect(grid.chars(0, 0)).toBe('f');
    expect(grid.clusters.size).toBe(0);
  });

  test('writes outside the grid are ignored and fills are clipped', () => {
    const grid = new Grid(3, 2);
    grid.setCell(-1, 0, 'x', red);
    grid.setCell(3, 0, 'x', red);
    grid.setCell(0, 2, 'x', red);
    expect([row(grid, 0), row(grid, 1)]).toEqual(['...', '...']);
    grid.fill({ x: 1, y: -1, width: 5, height: 2 }, red, 0x2d);
    expect([row(grid, 0), row(grid, 1)]).toEqual(['.--', '...']);
    expect(grid.cell(2, 0).fg).toBe(red.fg);
  });

  test('clear blanks every cell in a style and drops the marks', () => {
    const grid = new Grid(3, 1);
    grid.setCell(0, 0, 'a\u0301', red);
    grid.clear(red);
    expect(grid.cell(0, 0)).toEqual({ chars: '', width: 1, fg: red.fg, bg: red.bg, attrs: red.attrs });
    expect(grid.clusters.size).toBe(0);
  });

  test('copyFrom makes an independent copy, and refuses another size', () => {
    const source = new Grid(3, 1);
    source.setCell(0, 0, 'a\u0301', red);
    source.setCell(1, 0, '中', red);
    const copy = new Grid(3, 1);
    copy.copyFrom(source);
    expect(row(copy, 0)).toBe('a\u0301中_');
    source.setCell(0, 0, 'z', red);
    expect(copy.chars(0, 0)).toBe('a\u0301');
    expect(() => copy.copyFrom(new Grid(4, 1))).toThrow(RangeError);
  });

  test('a size that is not a positive integer is refused', () => {
    expect(() => new Grid(0, 1)).toThrow(RangeError);
    expect(() => new Grid(2.5, 1)).toThrow(RangeError);
  });
});
