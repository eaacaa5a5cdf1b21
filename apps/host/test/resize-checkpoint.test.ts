// A checkpoint after a resize to more rows, in process: xterm brings rows already moved to the
// deep store back onto the screen, and a program may then draw over them.
import { Terminal } from '@xterm/headless';
import { CanonicalTerminal, type TerminalEvents } from '../src/terminal';

const ignored = () => undefined;
const events: TerminalEvents = { recordsChanged: ignored, signalled: ignored, marked: ignored, title: ignored, reply: ignored };

/** What a mirror shows from `terminal`'s checkpoint: every row, the screen's first, the cursor. */
async function mirrored(terminal: CanonicalTerminal) {
  const start = terminal.checkpoint(100_000, 1 << 24);
  const term = new Terminal({ cols: start.cols, rows: start.rows, scrollback: 10_000, allowProposedApi: true });
  await new Promise<void>((resolve) => term.write(start.checkpoint, resolve));
  const buffer = term.buffer.active;
  const rows = Array.from({ length: buffer.length }, (_, y) => buffer.getLine(y)!.translateToString(true));
  term.dispose();
  return { rows, screen: rows.slice(buffer.baseY), cursor: [buffer.cursorY, buffer.cursorX] };
}

test('rows drawn over after a resize brought them back show as drawn, each other row once', async () => {
  const terminal = new CanonicalTerminal(80, 24, 100_000, events);
  // Ten lines a write, each parsed before the next (a read settles what waits): never a flood to
  // skim, so xterm's rows above its screen are the true ones.
  for (let i = 0; i < 1000; i += 10) {
    const piece = Array.from({ length: 10 }, (_, k) => `old-${i + k}\r\n`).join('');
    terminal.write(piece, piece.length);
    terminal.read(1);
  }
  terminal.resize(80, 40);
  const redraw = '\x1b7\x1b[1;1Hredrawn\x1b[K\x1b8';
  terminal.write(redraw, redraw.length);
  const { rows, screen, cursor } = await mirrored(terminal);
  expect(screen.slice(0, 3)).toEqual(['redrawn', 'old-962', 'old-963']);
  expect(cursor).toEqual([39, 0]);
  const old = rows.filter((row) => row.startsWith('old-'));
  expect(old).toEqual(Array.from({ length: 1000 }, (_, i) => `old-${i}`).filter((row) => row !== 'old-961'));
});
