// The resize witness (resize-witness.test.ts, resize-fuzz.test.ts): the host's canonical terminal
// and a plain xterm with room for every row, fed alike, as a mirror attached all along shows it.
import { READ_LINES_MAX } from '@paneflow/protocol';
import { joinRows } from '@paneflow/screen';
import { Terminal } from '@xterm/headless';
import { CanonicalTerminal, type TerminalEvents } from '../src/terminal';

const ignored = () => undefined;
const events: TerminalEvents = { recordsChanged: ignored, signalled: ignored, marked: ignored, title: ignored, reply: ignored };

/** The logical lines a terminal holds, oldest first, without the blank ones at the end. */
export function linesOf(term: Terminal): string[] {
  const buffer = term.buffer.active;
  const rows = Array.from({ length: buffer.length }, (_, y) => ({ text: buffer.getLine(y)!.translateToString(true), wrapped: buffer.getLine(y)!.isWrapped }));
  const lines = joinRows(rows);
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** The rows of a terminal's screen. */
export function screenOf(term: Terminal): string[] {
  const buffer = term.buffer.active;
  return Array.from({ length: term.rows }, (_, y) => buffer.getLine(buffer.baseY + y)!.translateToString(true));
}

/** Where a terminal's cursor is on its screen: row, column. */
export const cursorOf = (term: Terminal): [number, number] => [term.buffer.active.cursorY, term.buffer.active.cursorX];

const parsed = (term: Terminal, data: string) => new Promise<void>((resolve) => term.write(data, resolve));

/** The host's canonical terminal (keeping `scrollback` rows: more than its terminal's own, a deep store) and the witness, fed alike. */
export class Pair {
  readonly host: CanonicalTerminal;
  readonly witness: Terminal;

  constructor(cols = 80, scrollback = 100_000) {
    this.host = new CanonicalTerminal(cols, 24, scrollback, events);
    this.witness = new Terminal({ cols, rows: 24, scrollback: 100_000, allowProposedApi: true });
  }

  async write(data: string) {
    this.host.write(data, Buffer.byteLength(data));
    this.host.read(1); // parsed before the next write: never a flood to skim
    await parsed(this.witness, data);
  }

  /** Lines `from` on, ten to a write (a flood of one write when `flood`, which the host skims). */
  async lines(from: number, count: number, { long = '', flood = false } = {}) {
    if (flood) return this.write(Array.from({ length: count }, (_, k) => `line-${from + k}${long}\r\n`).join(''));
    for (let i = from; i < from + count; i += 10) {
      await this.write(Array.from({ length: Math.min(10, from + count - i) }, (_, k) => `line-${i + k}${long}\r\n`).join(''));
    }
  }

  resize(cols: number, rows: number) {
    this.host.resize(cols, rows);
    this.witness.resize(cols, rows);
  }

  /** What a mirror shows that starts from the host's checkpoint carrying `scrollback` rows: its lines, its screen's rows, its cursor. */
  async mirrored(scrollback: number): Promise<{ lines: string[]; screen: string[]; cursor: [number, number] }> {
    const start = this.host.checkpoint(scrollback, 1 << 24);
    const term = new Terminal({ cols: start.cols, rows: start.rows, scrollback: 100_000, allowProposedApi: true });
    await parsed(term, start.checkpoint);
    const shown = { lines: linesOf(term), screen: screenOf(term), cursor: cursorOf(term) };
    term.dispose();
    return shown;
  }

  /** `mirror` false: a checkpoint cannot lay out a row that continues a row not full (xterm's DL can leave one). */
  async expectAlike({ mirror = true } = {}) {
    const expected = linesOf(this.witness);
    const read = this.host.read(4000);
    expect({ read: read.text.split('\n') }).toEqual({ read: expected.slice(-READ_LINES_MAX) });
    expect(read.total_lines).toBe(expected.length);
    const found = this.host.search('line-', 1000).matches.map((match) => match.text);
    expect({ found }).toEqual({ found: expected.filter((line) => line.toLowerCase().includes('line-')).slice(0, 1000) });
    if (!mirror) return;
    const whole = await this.mirrored(100_000);
    expect({ mirrored: whole.lines, cursor: whole.cursor }).toEqual({ mirrored: expected, cursor: cursorOf(this.witness) });
    // A checkpoint with no scrollback or little still shows the whole screen, the cursor where it is.
    for (const scrollback of [0, 3]) {
      const { screen, cursor } = await this.mirrored(scrollback);
      expect({ scrollback, screen, cursor }).toEqual({ scrollback, screen: screenOf(this.witness), cursor: cursorOf(this.witness) });
    }
  }

  dispose() {
    this.host.dispose();
    this.witness.dispose();
  }
}

/** What a program draws after a resize, each ending with the cursor where a prompt would be. */
export const draws: Array<[string, string]> = [
  ['clear (CUP, ED 2)', '\x1b[H\x1b[2J$ prompt'],
  ['ED 2 then CUP', '\x1b[2J\x1b[H$ prompt'],
  ['ED 0 from the top', '\x1b[H\x1b[J$ prompt'],
  ['ED 1 from row 5', '\x1b[5;1H\x1b[1J\x1b[5;1H$ prompt'],
  ['the first row redrawn', '\x1b7\x1b[1;1Hredrawn\x1b[K\x1b8$ prompt'],
  ['three lines deleted at the top', '\x1b7\x1b[H\x1b[3M\x1b8$ prompt'],
  ['two lines inserted at the top, one written', '\x1b7\x1b[H\x1b[2Linserted\x1b8$ prompt'],
  ['two lines deleted and inserted on row 4', '\x1b7\x1b[4;1H\x1b[2M\x1b[2Lnew-4\x1b8$ prompt'],
  ['a line inserted by reverse index at the top', '\x1b7\x1b[H\x1bMreversed\x1b8$ prompt'],
  // Not DECSC/DECRC around a scroll at the top: xterm restores another row when its scrollback is not full.
  ['a scroll region at the top scrolled', '\x1b[1;10r\x1b[10;1H\n\n\n\x1b[r\x1b[999;1H$ prompt'],
  ['a scroll region below the top scrolled', '\x1b7\x1b[3;12r\x1b[12;1H\n\n\n\x1b[r\x1b8$ prompt'],
  ['nothing', '$ prompt'],
];

/** A line that wraps at 80 columns and below. */
export const LONG = ` ${'w'.repeat(100)}`;
