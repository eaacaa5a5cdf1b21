import fc from 'fast-check';
import { copyPane, Grid, layoutPanes, paletteColor, Renderer, writeText } from '../src';
import { expectSameScreen, Mirror, screenOf, terminal, write } from './terminals';

// The renderer's proof: terminal A is a pane, B the outer terminal. After every sync B must show
// exactly what A shows (characters, widths, colours, attributes, cursor), whatever A was given.

const ESC = '\x1b';
let mirror: Mirror;
beforeEach(() => {
  mirror = new Mirror(80, 24);
});
afterEach(() => mirror.dispose());

async function syncAndCompare(): Promise<string> {
  const bytes = await mirror.sync();
  expectSameScreen(mirror.b, mirror.a);
  return bytes;
}

const richScreen = [
  `${ESC}[H${ESC}[2J`,
  // 16 colours, foreground and background, normal and bright.
  ...[0, 1, 2, 3, 4, 5, 6, 7].map((n) => `${ESC}[3${n}m3${n}${ESC}[9${n}m9${n}${ESC}[4${n}m4${n}${ESC}[10${n}m10${n}${ESC}[0m`),
  '\r\n',
  // 256 colours and 24-bit colour.
  `${ESC}[38;5;16mcube${ESC}[38;5;231;48;5;88mwhite on red${ESC}[38;5;244mgrey${ESC}[0m `,
  `${ESC}[38;2;255;128;0morange${ESC}[48;2;0;64;128m on blue${ESC}[39mdefault fg${ESC}[0m\r\n`,
  // Every attribute, alone and together.
  `${ESC}[1mbold${ESC}[22m ${ESC}[2mdim${ESC}[22m ${ESC}[3mitalic${ESC}[23m ${ESC}[4munderline${ESC}[24m `,
  `${ESC}[5mblink${ESC}[25m ${ESC}[7minverse${ESC}[27m ${ESC}[8minvisible${ESC}[28m ${ESC}[9mstrike${ESC}[29m `,
  `${ESC}[1;2;3;4;5;7;9;38;5;45mall${ESC}[0m\r\n`,
  // Wide characters: CJK, Hangul, fullwidth, emoji; combining marks; box drawing.
  '中文字符 한국어 ＡＢＣ 😀🎉👍 ',
  'e\u0301 a\u0308\u0323 n\u0303 中\u0301 ',
  '┌──┬──┐│╳│═║╔╗\r\n',
  // Cursor movement and erasing.
  `${ESC}[10;10Hat 10,10${ESC}[2A${ESC}[5Cup two${ESC}[12;1H${ESC}[41m${ESC}[K${ESC}[0m`,
  `${ESC}[13;1H${ESC}[44m1234567890${ESC}[13;4H${ESC}[3X${ESC}[0m`,
  // A line overwritten in part.
  `${ESC}[15;1Hthe quick brown fox jumps over the lazy dog${ESC}[15;5H${ESC}[1;32mslow${ESC}[0m${ESC}[15;30H${ESC}[K`,
  `${ESC}[16;1H${ESC}[46mcyan row to the end${ESC}[K${ESC}[0m`,
  `${ESC}[20;40H`,
].join('');

test('a screen of colours, attributes, wide and combining characters, box drawing and erasing is reproduced cell for cell', async () => {
  await write(mirror.a, richScreen);
  await syncAndCompare();
  expect(mirror.b.buffer.active.cursorX).toBe(39);
  expect(mirror.b.buffer.active.cursorY).toBe(19);
});

test('later frames carry only the difference and keep B equal to A through output, scrolling and overwrites', async () => {
  await write(mirror.a, richScreen);
  const full = await syncAndCompare();

  await write(mirror.a, `${ESC}[20;1Hx`);
  const small = await syncAndCompare();
  expect(small.length).toBeLessThan(40);
  expect(small).toContain('x');
  expect(small).not.toContain('quick');

  // A wide character overwritten by narrow ones, on each half, and a narrow pair by a wide one.
  await write(mirror.a, `${ESC}[21;1H中文字${ESC}[21;1Hab${ESC}[21;4Hc${ESC}[22;1Hxyz${ESC}[22;2H字`);
  await syncAndCompare();

  // More output than the screen holds: everything scrolls.
  for (let line = 0; line < 30; line++) await write(mirror.a, `\r\nline ${line} ${ESC}[3${line % 8}m${'▒'.repeat(line)}${ESC}[0m 宽${line}`);
  await syncAndCompare();

  // Insert and delete characters and lines, a scroll region, reverse index.
  await write(mirror.a, `${ESC}[5;5H${ESC}[3@${ESC}[6;1H${ESC}[4P${ESC}[8;1H${ESC}[2L${ESC}[3;20r${ESC}[20;1H\n\n${ESC}[r${ESC}[1;1H${ESC}M`);
  await syncAndCompare();

  // Erase in display, below and above, with a background.
  await write(mirror.a, `${ESC}[12;40H${ESC}[45m${ESC}[J${ESC}[5;10H${ESC}[1J${ESC}[0m`);
  await syncAndCompare();

  // A frame with no change writes nothing at all.
  expect(await syncAndCompare()).toBe('');
  expect(full.length).toBeGreaterThan(small.length * 10);
});

test('the bottom-right cell is written without scrolling the outer terminal', async () => {
  await write(mirror.a, `${ESC}[24;79Hab${ESC}[1;1Htop`);
  await syncAndCompare();
  await write(mirror.a, `${ESC}[24;78H中`);
  await syncAndCompare();
});

test('a cursor that waits to wrap after the last column is placed on that column', async () => {
  await write(mirror.a, `${ESC}[5;1H${'w'.repeat(80)}`);
  expect(mirror.a.buffer.active.cursorX).toBe(80);
  await syncAndCompare();
  expect(mirror.b.buffer.active.cursorX).toBe(79);
  expect(mirror.b.buffer.active.cursorY).toBe(4);
});

test('panes placed by a layout show in the outer terminal exactly as in their own terminals', async () => {
  const layout = layoutPanes({ split: 'h', ratio: 0.4, children: [{ surface_id: 1 }, { surface_id: 2 }] }, { x: 10, y: 0, width: 70, height: 23 });
  const panes = layout.panes.map((pane) => ({ pane, term: terminal(pane.content.width, pane.content.height) }));
  const outer = terminal(80, 24);
  const frame = new Grid(80, 24);
  const renderer = new Renderer();
  const draw = async () => {
    frame.clear();
    writeText(frame, 0, 0, 'agents 中文 and more text than fits', { fg: paletteColor(3), bg: 0, attrs: 0 }, { maxWidth: 9, ellipsis: '…' });
    for (const border of layout.borders) frame.setCell(border.x, border.y, border.glyph, { fg: paletteColor(8), bg: 0, attrs: 0 });
    for (const { pane, term } of panes) copyPane(frame, term.buffer.active, pane.content);
    writeText(frame, 0, 23, 'status', { fg: 0, bg: paletteColor(2), attrs: 0 }, { maxWidth: 80 });
    await write(outer, renderer.render(frame, { x: 0, y: 0, visible: false, shape: 'block' }));
    for (const { pane, term } of panes) expect(screenOf(outer, pane.content).rows).toEqual(screenOf(term).rows);
  };
  await write(panes[0].term, `${ESC}[1;31mleft${ESC}[0m 中文字符 wraps at the border of its own terminal, 宽 ${'x'.repeat(40)}`);
  await write(panes[1].term, `${ESC}[44mright${ESC}[K${ESC}[0m\r\n😀 e\u0301 ┼─┼`);
  await draw();
  await write(panes[0].term, `${ESC}[H${ESC}[2Kshort`);
  await write(panes[1].term, `${ESC}[2;1Habc`);
  await draw();
  expect(screenOf(outer, { x: 0, y: 0, width: 9, height: 1 }).rows[0].map((cell) => cell.split('|')[0]).join('')).toBe('agents … ');
  for (const { term } of panes) term.dispose();
  outer.dispose();
});

// Random input: printable text, wide characters, combining marks, SGR, cursor moves and erases.
const sgr = fc
  .array(
    fc.oneof(
      fc.constantFrom('0', '1', '2', '3', '4', '5', '7', '8', '9', '22', '23', '24', '25', '27', '28', '29', '39', '49'),
      fc.integer({ min: 30, max: 37 }).map(String),
      fc.integer({ min: 40, max: 47 }).map(String),
      fc.integer({ min: 90, max: 97 }).map(String),
      fc.integer({ min: 100, max: 107 }).map(String),
      fc.integer({ min: 0, max: 255 }).map((n) => `38;5;${n}`),
      fc.integer({ min: 0, max: 255 }).map((n) => `48;5;${n}`),
      fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255)).map(([r, g, b]) => `38;2;${r};${g};${b}`),
      fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255)).map(([r, g, b]) => `48;2;${r};${g};${b}`),
    ),
    { minLength: 1, maxLength: 4 },
  )
  .map((params) => `${ESC}[${params.join(';')}m`);
const piece = fc.oneof(
  { arbitrary: fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 12 }), weight: 4 },
  { arbitrary: fc.constantFrom('中', '文', '한', 'Ａ', '😀', '🎉', '界'), weight: 3 },
  { arbitrary: fc.constantFrom('\u0301', '\u0308', '\u0323', '\u20dd'), weight: 1 },
  { arbitrary: fc.constantFrom('─', '│', '┼', '╬', '▒', 'é', 'ß', 'Ω'), weight: 1 },
  { arbitrary: sgr, weight: 3 },
  { arbitrary: fc.tuple(fc.integer({ min: 1, max: 24 }), fc.integer({ min: 1, max: 80 })).map(([r, c]) => `${ESC}[${r};${c}H`), weight: 2 },
  { arbitrary: fc.constantFrom('\r\n', '\r', '\n', `${ESC}[K`, `${ESC}[1K`, `${ESC}[2K`, `${ESC}[J`, `${ESC}[3X`, `${ESC}[2@`, `${ESC}[2P`, `${ESC}[S`, `${ESC}[T`), weight: 1 },
);

test('random printable, wide, combining and SGR input, in rounds, always leaves B equal to A', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(fc.array(piece, { maxLength: 30 }), { minLength: 1, maxLength: 6 }), async (rounds) => {
      const round = new Mirror(80, 24);
      try {
        for (const pieces of rounds) {
          await write(round.a, pieces.join(''));
          await round.sync();
          expectSameScreen(round.b, round.a);
        }
      } finally {
        round.dispose();
      }
    }),
    { numRuns: 60 },
  );
});
