// After resizes, the host's kept text against a witness: a plain xterm with room for every row that
// parsed the same output at the same sizes, as a mirror attached all along shows it. Whatever a
// program draws after a resize — an erase, a redraw of one row, a scroll region, lines deleted —
// read, search and a checkpoint hold each of the witness's lines once, in its order.
import { cursorOf, draws, linesOf, LONG, Pair, screenOf } from './witness';

const sizes: Array<[string, number, number]> = [
  ['the same size', 80, 24],
  ['narrower', 70, 24],
  ['fewer rows', 80, 20],
  ['more rows', 80, 30],
  ['more rows and narrower', 60, 34],
  ['more rows and wider', 100, 30],
];
describe.each(sizes)('resized to %s', (_, cols, rows) => {
  test.each(draws)('then %s: every line once, as the witness has them', async (__, draw) => {
    const pair = new Pair();
    try {
      await pair.lines(0, 1000);
      pair.resize(cols, rows);
      await pair.write(draw);
      await pair.expectAlike();
      await pair.write('\r\n');
      await pair.lines(1000, 60);
      await pair.expectAlike();
    } finally {
      pair.dispose();
    }
  });
});

const WIDE = ` ${'w'.repeat(170)}`;
const sequences: Array<[string, (pair: Pair) => Promise<void | { mirror: boolean }>]> = [
  ['cleared after more rows, then fewer rows', async (pair) => {
    pair.resize(80, 32);
    await pair.write('\x1b[H\x1b[2J$ clear\r\n');
    await pair.lines(1000, 30);
    pair.resize(80, 18);
    await pair.lines(1030, 30);
  }],
  ['resized twice to more rows, the second time after a redraw', async (pair) => {
    pair.resize(80, 28);
    await pair.write('\x1b7\x1b[2;1Hredrawn\x1b[K\x1b8');
    pair.resize(90, 36);
    await pair.write('\x1b[H\x1b[J$ prompt');
  }],
  ['an alternate screen resized while shown, after more rows', async (pair) => {
    pair.resize(80, 30);
    await pair.write('\x1b[?1049h\x1b[Hfull screen');
    pair.resize(64, 34);
    await pair.write('\x1b[?1049l\x1b[H\x1b[2J$ back');
    await pair.lines(1000, 40);
  }],
  ['lines that wrap, after more rows an alternate screen resized narrower and wider while shown', async (pair) => {
    await pair.lines(1000, 100, { long: LONG });
    pair.resize(80, 30);
    await pair.write('\x1b[?1049h\x1b[Hfull screen');
    pair.resize(50, 34);
    await pair.write('\x1b[?1049l$ back\r\n');
    await pair.lines(1100, 10, { long: LONG });
    await pair.write('\x1b[?1049h\x1b[Hfull screen');
    pair.resize(120, 34);
    await pair.write('\x1b[?1049l\x1b[H\x1b[2J$ back');
    await pair.lines(1110, 10, { long: LONG });
  }],
  ['more rows, the cursor moved up onto the rows brought back, more rows again', async (pair) => {
    pair.resize(80, 30);
    await pair.write('\x1b[2;1H');
    pair.resize(80, 33);
  }],
  // 130 lines not yet moved to the store that a reflow makes 260 rows: more than xterm keeps.
  ['long lines, resized to half the width', async (pair) => {
    pair.resize(120, 24);
    await pair.lines(1000, 130, { long: LONG });
    pair.resize(60, 24);
  }],
  ['long lines, an alternate screen resized to half the width while shown', async (pair) => {
    pair.resize(120, 24);
    await pair.lines(1000, 130, { long: LONG });
    await pair.write('\x1b[?1049h\x1b[Hfull screen');
    pair.resize(60, 24);
    await pair.write('\x1b[?1049l');
  }],
  // xterm keeps about a screen of the flood's lines above its screen; further up its rows are from before.
  ['lines that wrap, then a skimmed flood of short lines, resized to far more rows', async (pair) => {
    await pair.lines(1000, 300, { long: LONG });
    await pair.lines(1300, 3000, { flood: true });
    pair.resize(80, 70);
  }],
  ['lines that wrap, a skimmed flood, resized to more rows, then cleared', async (pair) => {
    await pair.lines(1000, 100, { long: LONG });
    await pair.lines(1100, 3000, { long: LONG, flood: true });
    pair.resize(80, 30);
    await pair.write('\x1b[H\x1b[2J$ prompt');
  }],
  ['lines that wrap, resized wider with more rows', async (pair) => {
    await pair.lines(1000, 300, { long: LONG });
    pair.resize(120, 30);
  }],
  ['lines printed narrower, resized wider with more rows, more rows again, then cleared', async (pair) => {
    pair.resize(60, 24);
    await pair.lines(1000, 100, { long: LONG });
    pair.resize(120, 34);
    pair.resize(120, 44);
    await pair.write('\x1b[H\x1b[2J$ prompt');
  }],
  ['more rows, the cursor moved to the top, far fewer rows', async (pair) => {
    pair.resize(80, 34);
    await pair.write('\x1b[1;1H');
    pair.resize(80, 8);
    await pair.write('$ prompt');
  }],
  ['lines that wrap, resized narrower with more rows, then cleared', async (pair) => {
    await pair.lines(1000, 100, { long: LONG });
    pair.resize(70, 31);
    await pair.write('\x1b[H\x1b[2J$ prompt\r\n');
    await pair.lines(1100, 20, { long: LONG });
  }],
  ['lines that wrap, more rows, the first row of the line on top deleted', async (pair) => {
    await pair.lines(1000, 100, { long: LONG });
    pair.resize(80, 29); // the five rows brought back start with a line's first row
    await pair.write('\x1b7\x1b[H\x1b[M\x1b8$ prompt');
    return { mirror: false };
  }],
  ['lines that wrap, resized wider with more rows, one row redrawn', async (pair) => {
    await pair.lines(1000, 100, { long: LONG });
    pair.resize(120, 30);
    await pair.write('\x1b7\x1b[3;1Hredrawn\x1b[K\x1b8$ prompt');
  }],
  ['a skimmed flood, resized to more rows, then cleared', async (pair) => {
    await pair.lines(1000, 3000, { flood: true });
    pair.resize(80, 30);
    await pair.write('\x1b[H\x1b[2J$ prompt');
  }],
  // xterm's own reflow of a buffer that overflows leaves the cursor's blank row a copy of the line above.
  ['long lines filling the terminal’s own scrollback, narrowed to a fifth', async (pair) => {
    pair.resize(190, 24);
    await pair.lines(1000, 400, { long: WIDE });
    pair.resize(40, 24);
    await pair.write('$ prompt');
  }],
  ['long lines filling the terminal’s own scrollback, narrowed with more rows', async (pair) => {
    pair.resize(200, 40);
    await pair.lines(1000, 400, { long: WIDE });
    pair.resize(80, 44);
  }],
  // The screen's 60 lines become 540 rows above it: more than the terminal's own scrollback holds.
  ['long lines filling the terminal’s own scrollback, narrowed to a tenth with many rows', async (pair) => {
    pair.resize(200, 60);
    await pair.lines(1000, 400, { long: WIDE });
    pair.resize(20, 60);
  }],
  // After a skimmed flood xterm's rows above its screen are from before it; a resize brings them back.
  ['a skimmed flood, resized to more rows, one row brought back redrawn', async (pair) => {
    await pair.lines(1000, 3000, { flood: true });
    pair.resize(80, 34);
    await pair.write('\x1b7\x1b[3;1Hredrawn\x1b[K\x1b8$ prompt');
  }],
  ['lines that wrap in a skimmed flood, resized narrower with more rows, one row brought back redrawn', async (pair) => {
    await pair.lines(1000, 3000, { long: LONG, flood: true });
    pair.resize(60, 34);
    await pair.write('\x1b7\x1b[3;1Hredrawn\x1b[K\x1b8$ prompt');
  }],
  ['lines that wrap in a skimmed flood, resized wider with more rows, one row brought back redrawn', async (pair) => {
    await pair.lines(1000, 3000, { long: LONG, flood: true });
    pair.resize(120, 34);
    await pair.write('\x1b7\x1b[3;1Hredrawn\x1b[K\x1b8$ prompt');
  }],
  // A line longer than the terminal keeps crossing the border: its start only in the store.
  ['a line longer than the terminal keeps, narrowed', async (pair) => {
    await pair.write(`${'x'.repeat(32_000)}\r\n`);
    await pair.lines(1000, 10);
    pair.resize(40, 24);
  }],
  ['a line longer than the terminal keeps, widened with more rows', async (pair) => {
    await pair.write(`${'x'.repeat(32_000)}\r\n`);
    await pair.lines(1000, 10);
    pair.resize(137, 30);
  }],
  ['a line longer than the terminal keeps, narrowed, more lines, narrowed again', async (pair) => {
    await pair.write(`${'x'.repeat(32_000)}\r\n`);
    await pair.lines(1000, 10);
    pair.resize(40, 24);
    await pair.lines(1010, 10);
    pair.resize(20, 24);
  }],
  ['a skimmed flood of lines in colour and CJK, resized to more rows', async (pair) => {
    await pair.lines(1000, 3000, { flood: true, long: ` \x1b[1;31mred\x1b[0m ${'日本語'.repeat(20)}x` });
    pair.resize(80, 50);
  }],
  ['a skimmed flood, resized to more rows, three lines deleted at the top', async (pair) => {
    await pair.lines(1000, 3000, { flood: true });
    pair.resize(80, 40);
    await pair.write('\x1b7\x1b[H\x1b[3M\x1b8$ prompt');
  }],
  ['a skimmed flood, resized to more rows, two lines inserted on row 4', async (pair) => {
    await pair.lines(1000, 3000, { flood: true });
    pair.resize(80, 40);
    await pair.write('\x1b7\x1b[4;1H\x1b[2Lnew\x1b8$ prompt');
  }],
  ['a skimmed flood, resized to more rows, erased above row 10', async (pair) => {
    await pair.lines(1000, 3000, { flood: true });
    pair.resize(80, 40);
    await pair.write('\x1b[10;1H\x1b[1J\x1b[40;1H$ prompt');
  }],
  ['a skimmed flood, resized to more rows, a scroll region at the top scrolled', async (pair) => {
    await pair.lines(1000, 3000, { flood: true });
    pair.resize(80, 40);
    await pair.write('\x1b[1;10r\x1b[10;1H\n\n\n\x1b[r\x1b[999;1H$ prompt');
  }],
  // Fewer than the screen's rows skimmed after a reflow: the rows the resize brings back reach
  // past those laid out at the new width.
  ['narrowed, a small skimmed flood, resized to far more rows', async (pair) => {
    pair.resize(70, 24);
    await pair.lines(1000, 40, { flood: true });
    pair.resize(70, 100);
  }],
  ['a skimmed flood ending with a line longer than the terminal keeps, resized to more rows', async (pair) => {
    await pair.write([...Array.from({ length: 500 }, (_, k) => `line-${1000 + k}\r\n`), `${'x'.repeat(32_000)}\r\n`].join(''));
    pair.resize(80, 40);
  }],
  ['a skimmed flood, then a line longer than the terminal keeps, narrowed', async (pair) => {
    await pair.lines(1000, 3000, { flood: true });
    await pair.write(`${'x'.repeat(32_000)}\r\n`);
    await pair.lines(4000, 10);
    pair.resize(40, 24);
  }],
  ['a line longer than the terminal keeps, resized to fewer rows', async (pair) => {
    await pair.write(`${'x'.repeat(32_000)}\r\n`);
    await pair.lines(1000, 10);
    pair.resize(80, 20);
  }],
  ['a line longer than the terminal keeps, resized to more rows', async (pair) => {
    await pair.write(`${'x'.repeat(32_000)}\r\n`);
    await pair.lines(1000, 10);
    pair.resize(80, 40);
  }],
  ['a line longer than the terminal keeps, widened with more rows, then fewer', async (pair) => {
    await pair.write(`${'x'.repeat(32_000)}\r\n`);
    await pair.lines(1000, 10);
    pair.resize(137, 30);
    pair.resize(137, 20);
  }],
  ['a line longer than the terminal keeps, narrowed, a skimmed flood, widened with more rows', async (pair) => {
    await pair.write(`${'x'.repeat(32_000)}\r\n`);
    await pair.lines(1000, 10);
    pair.resize(40, 24);
    await pair.lines(1010, 300, { flood: true });
    pair.resize(80, 40);
  }],
  // Its start trimmed from xterm, the line's tail comes back onto the screen.
  ['a line longer than the terminal keeps, 150 lines, resized to 250 rows', async (pair) => {
    await pair.write(`${'x'.repeat(32_000)}\r\n`);
    await pair.lines(1000, 150);
    pair.resize(80, 250);
  }],
  // The first row brought back continues a line begun above it; the clear erases its wrap flag.
  ['lines that wrap, wider with more rows, cleared', async (pair) => {
    await pair.lines(1000, 139, { long: LONG });
    pair.resize(81, 30);
    await pair.write('\x1b[H\x1b[2J$ clear\r\n');
  }],
  ['lines that wrap in a skimmed flood, wider with more rows, cleared', async (pair) => {
    await pair.lines(1000, 3000, { long: LONG, flood: true });
    pair.resize(81, 30);
    await pair.write('\x1b[H\x1b[2J$ clear\r\n');
  }],
  // The row redrawn continues a line: the store keeps the line's first row, on the screen.
  ['a skimmed flood of lines that wrap, in colour, resized to more rows, a continuing row redrawn', async (pair) => {
    await pair.lines(1000, 3000, { flood: true, long: ` \x1b[1;31mred${'w'.repeat(90)}\x1b[0m tail` });
    pair.resize(80, 40);
    await pair.write('\x1b7\x1b[5;1Hredrawn\x1b[K\x1b8$ prompt');
  }],
  // xterm keeps the cursor on its screen row, not its line, as the lines below it take more rows.
  ['lines that wrap, the cursor moved up ten rows, narrowed', async (pair) => {
    await pair.lines(1000, 300, { long: LONG });
    await pair.write('\x1b[10A');
    pair.resize(49, 24);
  }],
  ['lines that wrap, the cursor moved up ten rows, narrowed with more rows', async (pair) => {
    await pair.lines(1000, 300, { long: LONG });
    await pair.write('\x1b[10A');
    pair.resize(49, 34);
  }],
  ['lines that wrap, erased above row 3, narrowed with fewer rows', async (pair) => {
    await pair.lines(1000, 300, { long: LONG });
    await pair.write('\x1b[3;1H\x1b[1J$ prompt');
    pair.resize(49, 11);
    await pair.lines(1300, 20, { long: LONG });
  }],
  ['a skimmed flood, resized to the same size, then cleared', async (pair) => {
    await pair.lines(1000, 3000, { flood: true });
    pair.resize(80, 24);
    await pair.write('\x1b[2J\x1b[H$ prompt');
    await pair.lines(4000, 30);
  }],
];

test.each(sequences)('%s: every line once, as the witness has them', async (_, sequence) => {
  const pair = new Pair();
  try {
    await pair.lines(0, 1000);
    await pair.expectAlike((await sequence(pair)) ?? {});
  } finally {
    pair.dispose();
  }
});

test('a checkpoint without scrollback after a resize to more rows carries the screen, not the whole line crossing its top', async () => {
  const pair = new Pair();
  try {
    await pair.lines(0, 100);
    await pair.write(`${'x'.repeat(32_000)}\r\n`);
    await pair.lines(100, 10);
    pair.resize(80, 40);
    const start = pair.host.checkpoint(0, 1 << 20);
    expect(start.scrollback_rows).toBe(0);
    expect(start.checkpoint.length).toBeLessThan(16_000);
    expect((await pair.mirrored(0)).screen).toEqual(screenOf(pair.witness));
    // Its start is past what xterm keeps: the store holds the line's first part, the terminal the
    // rest, one line to read, search and lay out.
    await pair.expectAlike();
  } finally {
    pair.dispose();
  }
});

test('a session that keeps no more rows than the terminal: a full buffer narrowed shows what a terminal with room for every row shows', async () => {
  const pair = new Pair(190, 200);
  try {
    await pair.lines(0, 400, { long: WIDE, flood: true });
    pair.resize(40, 24);
    await pair.write('$ prompt');
    const { screen, cursor } = await pair.mirrored(0);
    expect({ screen, cursor }).toEqual({ screen: screenOf(pair.witness), cursor: cursorOf(pair.witness) });
    expect(pair.host.read(3).text.split('\n')).toEqual(linesOf(pair.witness).slice(-3));
  } finally {
    pair.dispose();
  }
});
