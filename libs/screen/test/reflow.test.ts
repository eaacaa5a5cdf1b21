// xterm.js's reflow of a full buffer, and the room `roomForResize` makes for it, against a witness
// with room for every row: the day an upgrade fixes the overflow, the first test fails and the
// workaround can go.
import { Terminal } from '@xterm/headless';
import { resizeWithRoom, roomForResize } from '../src/reflow';

const COLS = 190;
const ROWS = 8;
const SCROLLBACK = 250;

const parsed = (term: Terminal, data: string) => new Promise<void>((resolve) => term.write(data, resolve));

/** The screen's rows, each with its wrap flag, and the cursor. */
function screen(term: Terminal) {
  const buffer = term.buffer.normal;
  const rows = Array.from({ length: term.rows }, (_, y) => {
    const line = buffer.getLine(buffer.baseY + y)!;
    return `${line.isWrapped ? '+' : '|'}${line.translateToString(true)}`;
  });
  return { rows, cursor: [buffer.cursorY, buffer.cursorX] };
}

/** A terminal filled past its scrollback with lines of about 180 columns, and a witness that keeps every row. */
async function filled() {
  const term = new Terminal({ cols: COLS, rows: ROWS, scrollback: SCROLLBACK, allowProposedApi: true });
  const witness = new Terminal({ cols: COLS, rows: ROWS, scrollback: 100_000, allowProposedApi: true });
  const lines = Array.from({ length: 400 }, (_, i) => `line-${i} ${'w'.repeat(170)}\r\n`).join('');
  await Promise.all([term, witness].map((t) => parsed(t, lines)));
  return { term, witness };
}

test('xterm.js narrowing a full buffer leaves a wrapped copy of the line above on the cursor’s blank row', async () => {
  const { term, witness } = await filled();
  term.resize(40, ROWS);
  witness.resize(40, ROWS);
  expect(screen(witness).rows.at(-1)).toBe('|');
  expect(screen(term).rows.at(-1)).toMatch(/^\+w+$/);
  term.dispose();
  witness.dispose();
});

test.each([
  [40, ROWS],
  [40, 12],
  [17, ROWS],
  [100, 5],
])('with room made, a full buffer narrowed to %i×%i shows what the witness shows, and keeps its scrollback', async (cols, rows) => {
  const { term, witness } = await filled();
  resizeWithRoom(term, cols, rows);
  witness.resize(cols, rows);
  expect(screen(term)).toEqual(screen(witness));
  expect(term.options.scrollback).toBe(SCROLLBACK);
  expect(term.buffer.normal.length).toBe(SCROLLBACK + rows);
  // What follows goes on a line of its own, as in the witness.
  await Promise.all([term, witness].map((t) => parsed(t, 'next')));
  expect(screen(term)).toEqual(screen(witness));
  term.dispose();
  witness.dispose();
});

test('no room is made when the size stays, the width grows, or every row fits', async () => {
  const { term } = await filled();
  roomForResize(term, COLS, ROWS);
  roomForResize(term, COLS + 10, ROWS);
  expect(term.options.scrollback).toBe(SCROLLBACK);
  const roomy = new Terminal({ cols: COLS, rows: ROWS, scrollback: 10_000, allowProposedApi: true });
  await parsed(roomy, 'one line\r\n');
  roomForResize(roomy, 40, 4);
  expect(roomy.options.scrollback).toBe(10_000);
  term.dispose();
  roomy.dispose();
});

test('fewer rows: the rows pushed off the screen stay until the scrollback is put back, then the oldest go', async () => {
  const { term } = await filled();
  const oldest = () => term.buffer.normal.getLine(0)!.translateToString(true);
  const before = oldest();
  const restore = roomForResize(term, COLS, ROWS - 3);
  term.resize(COLS, ROWS - 3);
  expect([oldest(), term.buffer.normal.length]).toEqual([before, SCROLLBACK + ROWS]);
  restore();
  expect([term.options.scrollback, term.buffer.normal.length]).toEqual([SCROLLBACK, SCROLLBACK + ROWS - 3]);
  expect(oldest()).not.toBe(before);
  term.dispose();
});
