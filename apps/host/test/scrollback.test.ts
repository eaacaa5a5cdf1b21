import { Terminal } from '@xterm/headless';
import { Unicode11Addon } from '@xterm/addon-unicode11';
import { CHECKPOINT_REPLAY_BYTES } from '@paneflow/protocol';
import { startHost, type HostClient, type TestHost } from './helpers';
import { scaled } from '@paneflow/testing';

let host: TestHost;
let client: HostClient;
beforeAll(async () => {
  host = await startHost();
  client = await host.connect();
});
afterAll(() => host.cleanup());

// 120,000 lines, more than the 100,000 rows a session keeps: each in its own colour and weight,
// with wide and combining characters, and every 1000th long enough to wrap over three rows.
const LINES = 120_000;
const line = (i: number) => {
  const text = `deep-${i} 日本語 e\u0301 ${i % 1000 === 0 ? 'w'.repeat(180) : 'end'}`;
  return { text, printed: `\x1b[${i % 2 ? 1 : 3};3${i % 7}m${text}\x1b[0m` };
};
const PRINTER = `
  const line = ${line.toString()};
  let out = '';
  for (let i = 0; i < ${LINES}; i++) {
    out += line(i).printed + '\\r\\n';
    if (out.length > 60000) { process.stdout.write(out); out = ''; }
  }
  process.stdout.write(out + 'printed-all\\r\\n');
  setInterval(() => {}, 1000);`;

/** A terminal as a mirror builds it (Unicode 11 widths, as the host's and the faces'). */
function mirror(cols: number, rows: number, scrollback = 10_000) {
  const term = new Terminal({ cols, rows, scrollback, allowProposedApi: true });
  term.loadAddon(new Unicode11Addon());
  term.unicode.activeVersion = '11';
  return term;
}

/** The weight and palette colour of the cells of the first row of `term` that holds `text`. */
function styleOf(term: Terminal, text: string) {
  for (let y = 0; y < term.buffer.active.length; y++) {
    const row = term.buffer.active.getLine(y)!;
    const x = row.translateToString(true).indexOf(text);
    if (x < 0) continue;
    const cell = row.getCell(x)!;
    return { bold: cell.isBold() !== 0, italic: cell.isItalic() !== 0, fg: cell.isFgPalette() ? cell.getFgColor() : null };
  }
  return null;
}

function logicalLines(term: Terminal): string[] {
  const lines: string[] = [];
  for (let y = 0; y < term.buffer.active.length; y++) {
    const row = term.buffer.active.getLine(y)!;
    if (row.isWrapped && lines.length > 0) lines[lines.length - 1] += row.translateToString(true);
    else lines.push(row.translateToString(true));
  }
  return lines;
}

/** A mirror built from an attach of `session`: its rows (scrollback and screen), the screen's, the cursor's place. */
async function attachedMirror(session: string) {
  const start = await client.request('session.attach', { session });
  const term = mirror(start.cols, start.rows);
  await new Promise<void>((resolve) => term.write(start.checkpoint, resolve));
  const buffer = term.buffer.active;
  const rows = Array.from({ length: buffer.length }, (_, y) => buffer.getLine(y)!.translateToString(true));
  term.dispose();
  return { rows, screen: rows.slice(buffer.baseY), cursor: [buffer.cursorY, buffer.cursorX] };
}

describe('deep scrollback, kept compactly past the terminal', () => {
  let session: string;
  beforeAll(async () => {
    ({ session } = await client.create({ argv: [process.execPath, '-e', PRINTER], cols: 80, rows: 24, scrollback: 100_000 }));
    await client.screenMatching(session, /^printed-all$/m, 60_000);
  });

  test('read gives the lines deep in the store exactly as the program printed them, the oldest dropped past the limit', async () => {
    const { total_lines } = await client.request('session.read', { session, lines: 1 });
    // 100,000 rows or a little more (whole blocks go), fewer lines since long lines took three rows.
    expect(total_lines).toBeGreaterThanOrEqual(100_000 - 200);
    expect(total_lines).toBeLessThan(LINES);
    const firstKept = LINES + 1 - total_lines; // the line index of the oldest kept line ('printed-all' is the last)
    const read = await client.request('session.read', { session, lines: 4000, offset: total_lines - 4000 });
    expect(read.text.split('\n')).toEqual(Array.from({ length: 4000 }, (_, k) => line(firstKept + k).text));
    const deep = await client.request('session.read', { session, lines: 3, offset: 50_001 });
    const last = LINES - 1 - 50_000;
    expect(deep.text.split('\n')).toEqual([line(last - 2).text, line(last - 1).text, line(last).text]);
    // A long line deep in the store is one line, its three rows joined.
    const wrapped = await client.request('session.read', { session, lines: 1, offset: LINES - 30_000 });
    expect(wrapped.text).toBe(line(30_000).text);
    const tail = await client.request('session.read', { session, lines: 2 });
    expect(tail.text).toBe(`${line(LINES - 1).text}\nprinted-all`);
  });

  test('search finds lines deep in the store, with their text and their place', async () => {
    const { total_lines } = await client.request('session.read', { session, lines: 1 });
    const firstKept = LINES + 1 - total_lines;
    const found = await client.request('session.search', { session, pattern: 'DEEP-30000 ' });
    expect(found).toEqual({ matches: [{ line: 30_000 - firstKept + 1, text: line(30_000).text }], truncated: false });
    expect((await client.request('session.search', { session, pattern: 'deep-5 ' })).matches).toEqual([]); // dropped
  });

  test('a mirror attached twice rebuilds the deep rows it asks for, colours kept, the same each time', async () => {
    const first = await client.request('session.attach', { session, scrollback: 10_000 });
    const again = await client.request('session.attach', { session, scrollback: 10_000 });
    expect(again.checkpoint).toBe(first.checkpoint);
    const term = mirror(first.cols, first.rows);
    await new Promise<void>((resolve) => term.write(first.checkpoint, resolve));
    const lines = logicalLines(term);
    const printed = lines.indexOf('printed-all');
    // 10,000 rows of scrollback and the screen: the last lines, ending where the program ended.
    expect(lines.slice(printed - 5000, printed)).toEqual(Array.from({ length: 5000 }, (_, k) => line(LINES - 5000 + k).text));
    for (const i of [LINES - 9000, LINES - 5001, LINES - 2000, LINES - 1]) {
      expect(styleOf(term, `deep-${i} `)).toEqual({ bold: i % 2 === 1, italic: i % 2 === 0, fg: i % 7 });
    }
    term.dispose();
  });

  test('an attach without a scrollback replays every kept row, far past 10,000, colours kept; read and attach count the rows dropped', async () => {
    const read = await client.request('session.read', { session, lines: 1 });
    const start = await client.request('session.attach', { session });
    // Every row printed: a row per line, two more for each 1000th, 'printed-all' and the cursor's row.
    const printedRows = LINES + 2 * (LINES / 1000) + 2;
    expect(read.dropped_rows).toBeGreaterThan(0);
    expect(start.dropped_rows).toBe(read.dropped_rows);
    expect(start.scrollback_rows + start.dropped_rows + start.rows).toBe(printedRows);
    const term = mirror(start.cols, start.rows, 200_000);
    await new Promise<void>((resolve) => term.write(start.checkpoint, resolve));
    const lines = logicalLines(term);
    const firstKept = LINES + 1 - read.total_lines;
    expect(lines.slice(0, read.total_lines)).toEqual([...Array.from({ length: read.total_lines - 1 }, (_, k) => line(firstKept + k).text), 'printed-all']);
    for (const i of [firstKept, LINES - 90_000, LINES - 30_000, LINES - 1]) {
      expect(styleOf(term, `deep-${i} `)).toEqual({ bold: i % 2 === 1, italic: i % 2 === 0, fg: i % 7 });
    }
    term.dispose();
  });

  test('the text kept at exit fills its 512 KiB from the deep store, ending with the last line', async () => {
    const { session: exiting } = await client.create({ argv: [process.execPath, '-e', PRINTER.replace('setInterval(() => {}, 1000);', '')], scrollback: 100_000 });
    await client.frame((f) => f.type === 'lifecycle' && f.session === exiting && f.lifecycle === 'exited', 60_000);
    const finalOutput = (await client.request('session.inspect', { session: exiting })).final_output!;
    expect(Buffer.byteLength(finalOutput)).toBeLessThanOrEqual(512 * 1024);
    expect(Buffer.byteLength(finalOutput)).toBeGreaterThan(500 * 1024);
    const lines = finalOutput.split('\n');
    expect(lines.at(-1)).toBe('printed-all');
    expect(lines.slice(1, -1)).toEqual(Array.from({ length: lines.length - 2 }, (_, k) => line(LINES - lines.length + 2 + k).text));
  });

  test('a resize keeps every line once: stored rows as printed, the terminal’s own reflowed; read and attach alike', async () => {
    const SHORT = 3000; // lines
    const program = `for (let i = 0; i < ${SHORT}; i++) process.stdout.write(('line-' + i + ' ').padEnd(50, '.') + '\\r\\n'); process.stdout.write('x'.repeat(100) + '\\r\\nprinted-all\\r\\n'); setInterval(() => {}, 1000);`;
    const { session: resized } = await client.create({ argv: [process.execPath, '-e', program], cols: 80, rows: 24, scrollback: 100_000 });
    await client.screenMatching(resized, /^printed-all$/m, 60_000);
    // 50 columns: two rows each at 30 columns, so the narrowing reflow doubles the terminal's rows.
    const expected = [...Array.from({ length: SHORT }, (_, i) => `line-${i} `.padEnd(50, '.')), 'x'.repeat(100), 'printed-all'];
    const attached = async () => {
      const start = await client.request('session.attach', { session: resized });
      const term = mirror(start.cols, start.rows);
      await new Promise<void>((resolve) => term.write(start.checkpoint, resolve));
      const { baseY, cursorY, cursorX } = term.buffer.active;
      expect([term.buffer.active.getLine(baseY + cursorY - 1)!.translateToString(true), cursorX]).toEqual(['printed-all', 0]);
      const lines = logicalLines(term);
      term.dispose();
      return lines.slice(0, lines.lastIndexOf('printed-all') + 1);
    };
    const before = await client.request('session.read', { session: resized, lines: 4000 });
    expect(before.text.split('\n')).toEqual(expected);
    expect(await attached()).toEqual(expected);
    await client.request('session.resize', { session: resized, cols: 30, rows: 10 });
    const narrow = await client.request('session.read', { session: resized, lines: 4000 });
    expect(narrow.text.split('\n')).toEqual(expected);
    expect(await attached()).toEqual(expected);
    // Taller: xterm brings rows back from its scrollback onto the screen, rows already in the store.
    await client.request('session.resize', { session: resized, cols: 120, rows: 30 });
    expect((await client.request('session.read', { session: resized, lines: 4000 })).text.split('\n')).toEqual(expected);
    expect(await attached()).toEqual(expected);
  });

  test('after a resize, an attach lays out a screen that is blank below its first row as the terminal has it', async () => {
    // ED 2 blanks the screen and keeps the scrollback; the resize moves all of it to the store.
    const program = `for (let i = 0; i < 1000; i++) process.stdout.write('old-' + i + '\\r\\n'); process.stdout.write('\\x1b[H\\x1b[2Jtop-row\\r\\n> '); setInterval(() => {}, 1000);`;
    const { session: cleared } = await client.create({ argv: [process.execPath, '-e', program], cols: 80, rows: 24, scrollback: 100_000 });
    await client.screenMatching(cleared, /^top-row$/m, 60_000);
    await client.request('session.resize', { session: cleared, cols: 70, rows: 20 });
    const { rows, screen, cursor } = await attachedMirror(cleared);
    expect(screen).toEqual(['top-row', '> ', ...Array<string>(18).fill('')]);
    expect(cursor).toEqual([1, 2]);
    expect(rows[rows.length - screen.length - 1]).toBe('old-976'); // the rows on the screen (old-977 on) were blanked
  });

  test('after a resize to more rows after a flood, an attach shows the rows brought back onto the screen as the store holds them', async () => {
    // One write of 1000 lines is skimmed: xterm's own rows above its screen are from before it.
    const program = `let out = ''; for (let i = 0; i < 1000; i++) out += 'old-' + i + '\\r\\n'; process.stdout.write(out + 'printed-all'); setInterval(() => {}, 1000);`;
    const { session: flooded } = await client.create({ argv: [process.execPath, '-e', program], cols: 80, rows: 24, scrollback: 100_000 });
    await client.screenMatching(flooded, /^printed-all$/m, 60_000);
    await client.request('session.resize', { session: flooded, cols: 80, rows: 40 });
    const { rows, screen, cursor } = await attachedMirror(flooded);
    expect(rows.slice(0, rows.lastIndexOf('printed-all') + 1)).toEqual([...Array.from({ length: 1000 }, (_, i) => `old-${i}`), 'printed-all']);
    expect(screen.slice(0, 16)).toEqual(Array.from({ length: 16 }, (_, i) => `old-${961 + i}`));
    expect(cursor).toEqual([39, 11]);
  });

  test('after a flood and a resize to more rows, a program that redraws one row brought back leaves the others as they were', async () => {
    // One write of 1000 lines is skimmed; once told (any input, not echoed: raw mode before the
    // write), the program redraws the third row.
    const program = `process.stdin.setRawMode(true); let out = ''; for (let i = 0; i < 1000; i++) out += 'old-' + i + '\\r\\n'; process.stdout.write(out + 'printed-all'); process.stdin.on('data', () => process.stdout.write('\\x1b7\\x1b[3;1Hredrawn\\x1b[K\\x1b8')); setInterval(() => {}, 1000);`;
    const { session: flooded } = await client.create({ argv: [process.execPath, '-e', program], cols: 80, rows: 24, scrollback: 100_000 });
    await client.screenMatching(flooded, /^printed-all$/m, 60_000);
    await client.request('session.resize', { session: flooded, cols: 80, rows: 40 });
    await client.request('session.input', { session: flooded, text: 'go', origin: 'automation' });
    await client.screenMatching(flooded, /^redrawn$/m);
    // The rows brought back were old-961 to old-976: the third is redrawn, the rest are as they were.
    const expected = [...Array.from({ length: 1000 }, (_, i) => (i === 963 ? 'redrawn' : `old-${i}`)), 'printed-all'];
    const read = await client.request('session.read', { session: flooded, lines: 2000 });
    expect(read.text.split('\n').slice(0, 1001)).toEqual(expected);
    const { rows } = await attachedMirror(flooded);
    expect(rows.slice(0, 1001)).toEqual(expected);
  });

  test('a resize, then Ctrl-L in bash: read, search and an attach hold each line once and the prompt on top', async () => {
    const { session: shell } = await client.create({ argv: ['bash', '--norc', '--noprofile'], cols: 80, rows: 24, scrollback: 100_000 });
    await client.screenMatching(shell, /^bash-[\d.]+[$#] $/m);
    // The command line itself holds no "old-": only the printed lines match.
    await client.request('session.input', { session: shell, text: "for i in $(seq 0 999); do printf 'ol%s-%d\\n' d $i; done\r", origin: 'automation' });
    await client.screenMatching(shell, /^old-999\nbash-[\d.]+[$#] $/m);
    // As an attach fits the pane to a taller terminal: rows already in the store come back onto the screen.
    await client.request('session.resize', { session: shell, cols: 80, rows: 30 });
    await client.request('session.input', { session: shell, text: '\x0c', origin: 'automation' });
    // The prompt again, now after the last line above the erased screen.
    await client.screenMatching(shell, /old-(?!999\n)\d+\nbash-[\d.]+[$#] $/);
    const kept = (await client.request('session.search', { session: shell, pattern: 'old-', max_matches: 1000 })).matches.map((match: { text: string }) => match.text);
    // Ctrl-L erased the screen, the rows brought back onto it with it; those above stay, each once.
    expect(kept.length).toBeGreaterThan(900);
    expect(kept).toEqual(Array.from({ length: kept.length }, (_, i) => `old-${i}`));
    const read = await client.request('session.read', { session: shell, lines: 2000 });
    expect(read.text.split('\n').filter((text: string) => text.startsWith('old-'))).toEqual(kept);
    expect(read.text).toMatch(/old-\d+\nbash-[\d.]+[$#] $/);
    const { rows, screen } = await attachedMirror(shell);
    expect(rows.filter((row) => row.startsWith('old-'))).toEqual(kept);
    expect(screen[0]).toMatch(/^bash-[\d.]+[$#] $/);
  });

  test('a line longer than the terminal keeps, narrowed then made taller: read, search and an attach hold it once, whole', async () => {
    // 32,000 characters: 400 rows at 80 columns, more than the terminal's own 250 hold.
    const program = `for (let i = 0; i < 100; i++) process.stdout.write('old-' + i + '\\r\\n'); process.stdout.write('x'.repeat(32000) + '\\r\\nprinted-all\\r\\n'); setInterval(() => {}, 1000);`;
    const { session: long } = await client.create({ argv: [process.execPath, '-e', program], cols: 80, rows: 24, scrollback: 100_000 });
    await client.screenMatching(long, /^printed-all$/m, 60_000);
    const expected = [...Array.from({ length: 100 }, (_, i) => `old-${i}`), 'x'.repeat(32_000), 'printed-all'];
    for (const [cols, rows] of [[45, 24], [45, 40]]) {
      await client.request('session.resize', { session: long, cols, rows });
      const read = await client.request('session.read', { session: long, lines: 200 });
      expect({ cols, rows, read: read.text.split('\n').filter((text: string) => text !== '') }).toEqual({ cols, rows, read: expected });
      const found = await client.request('session.search', { session: long, pattern: 'xxx' });
      expect(found.matches.map((match: { line: number; text: string }) => [match.line, match.text.length])).toEqual([[101, 32_000]]);
      const start = await client.request('session.attach', { session: long });
      const term = mirror(start.cols, start.rows);
      await new Promise<void>((resolve) => term.write(start.checkpoint, resolve));
      expect(logicalLines(term).filter((text) => text !== '')).toEqual(expected);
      term.dispose();
    }
  });

  test('ED 3 (erase the scrollback) erases the deep rows too', async () => {
    const { session: cleared } = await client.create({ argv: [process.execPath, '-e', `${PRINTER.replace("'printed-all", "'\\x1b[3J\\x1b[H\\x1b[2Jprinted-all")}`], scrollback: 100_000 });
    await client.screenMatching(cleared, /^printed-all$/m, 60_000);
    const after = await client.request('session.read', { session: cleared, lines: 10 });
    expect(after.total_lines).toBeLessThan(30);
    expect(after.text).toContain('printed-all');
  });

  test('an attach replays the newest rows that fit in 16 MiB of text, whole, when more are kept', async () => {
    // 100,000 rows of 40 two-letter runs, each in its own colour: about 26 MiB to replay.
    const ROWS = 100_000;
    const row = (i: number) => Array.from({ length: 40 }, (_, k) => `\x1b[3${(i + k) % 8}m${k === 0 ? String(i % 100).padStart(2, '0') : 'ab'}`).join('') + '\x1b[0m';
    const program = `const row = ${row.toString()};
      let out = '';
      for (let i = 0; i < ${ROWS}; i++) {
        out += row(i) + '\\r\\n';
        if (out.length > 60000) { process.stdout.write(out); out = ''; }
      }
      process.stdout.write(out + 'printed-all\\r\\n');
      setInterval(() => {}, 1000);`;
    const { session: colourful } = await client.create({ argv: [process.execPath, '-e', program], scrollback: 100_000 });
    await client.screenMatching(colourful, /^printed-all$/m, 120_000);
    const start = await client.request('session.attach', { session: colourful });
    const kept = (await client.request('session.read', { session: colourful, lines: 1 })).total_lines;
    expect(start.scrollback_rows).toBeLessThan(kept - start.rows);
    expect(start.scrollback_rows).toBeGreaterThan(40_000);
    const bytes = Buffer.byteLength(start.checkpoint);
    expect(bytes).toBeLessThanOrEqual(CHECKPOINT_REPLAY_BYTES + 64 * 1024); // the screen's own share on top
    expect(bytes).toBeGreaterThan(CHECKPOINT_REPLAY_BYTES - 1024); // filled up to the last row that fits
    // The mirror holds the newest rows, each whole and in its colours, ending with the last.
    const term = mirror(start.cols, start.rows, 200_000);
    await new Promise<void>((resolve) => term.write(start.checkpoint, resolve));
    const lines = logicalLines(term);
    const last = lines.lastIndexOf('printed-all');
    const replayed = lines.slice(0, last);
    const first = ROWS - replayed.length;
    expect(replayed[0]).toBe(String(first % 100).padStart(2, '0') + 'ab'.repeat(39));
    expect(replayed.at(-1)).toBe(String((ROWS - 1) % 100).padStart(2, '0') + 'ab'.repeat(39));
    const firstRow = term.buffer.active.getLine(0)!;
    expect([0, 2, 78].map((x) => firstRow.getCell(x)!.getFgColor())).toEqual([first % 8, (first + 1) % 8, (first + 39) % 8]);
    term.dispose();
  }, scaled(180_000));
});
