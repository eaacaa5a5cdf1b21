import { readHostSecret } from '@paneflow/instance';
import { type OutputFrame } from '@paneflow/protocol';
import { Terminal } from '@xterm/headless';
import { createConnection, type Socket } from 'node:net';
import { readFramesUntil, startHost, type HostClient, type OutputStream, type TestHost } from './helpers';
import { scaled } from '@paneflow/testing';

let host: TestHost;
let client: HostClient;
beforeAll(async () => {
  host = await startHost();
  client = await host.connect();
});
afterAll(() => host.cleanup());

const BASH = ['bash', '--norc', '--noprofile'];
const MiB = 1024 * 1024;

/** A terminal as a mirror builds it. */
function terminal(cols: number, rows: number) {
  const term = new Terminal({ cols, rows, scrollback: 10_000, allowProposedApi: true });
  return {
    term,
    write: (data: string | Uint8Array) => new Promise<void>((resolve) => term.write(data, resolve)),
    dispose: () => term.dispose(),
  };
}

/** Logical lines, as session.read gives them: a wrapped row continues the one before. */
function textOf(term: Terminal): string {
  const lines: string[] = [];
  for (let i = 0; i < term.buffer.active.length; i++) {
    const line = term.buffer.active.getLine(i)!;
    if (line.isWrapped && lines.length > 0) lines[lines.length - 1] += line.translateToString(true);
    else lines.push(line.translateToString(true));
  }
  return lines.join('\n').trimEnd();
}

/** Every row of the buffer, scrollback included, as runs of characters with their attributes. */
function cellsOf(term: Terminal): string[] {
  const rows: string[] = [];
  const cell = term.buffer.active.getNullCell();
  for (let y = 0; y < term.buffer.active.length; y++) {
    const line = term.buffer.active.getLine(y)!;
    let row = '';
    let last = '';
    for (let x = 0; x < line.length; x++) {
      line.getCell(x, cell);
      const attrs = [cell.getFgColorMode(), cell.getFgColor(), cell.getBgColorMode(), cell.getBgColor(), cell.isBold(), cell.isDim(), cell.isItalic(), cell.isUnderline(), cell.isInverse()].join(',');
      if (attrs !== last) row += `[${attrs}]`;
      last = attrs;
      row += cell.getChars() || ' ';
    }
    rows.push(row);
  }
  return rows;
}

/** The attributes of the cells holding `text` on the first row that has it. */
function attributesOf(term: Terminal, text: string) {
  for (let y = 0; y < term.buffer.active.length; y++) {
    const line = term.buffer.active.getLine(y)!;
    const x = line.translateToString(true).indexOf(text);
    if (x < 0) continue;
    const cells = Array.from({ length: text.length }, (_, i) => line.getCell(x + i)!);
    return cells.map((c) => ({ palette: c.isFgPalette(), fg: c.getFgColor(), bold: c.isBold() !== 0 }));
  }
  throw new Error(`no row holds ${text}`);
}

/** The stream's bytes from `from` to `end`, once they have all come, checked contiguous and in order. */
async function streamBytes(stream: OutputStream, from: number, end: number): Promise<Buffer> {
  if (end > from) await stream.wait((f) => f.type === 'output_data' && f.offset + Buffer.from(f.data, 'base64').length >= end);
  const parts: Buffer[] = [];
  let next = from;
  for (const frame of stream.frames) {
    if (frame.type !== 'output_data' || next >= end) continue;
    expect(frame.offset).toBe(next);
    const data = Buffer.from(frame.data, 'base64');
    parts.push(data);
    next += data.length;
  }
  return Buffer.concat(parts).subarray(0, end - from);
}

describe('mirrors: session.attach and session.output', () => {
  test('a checkpoint plus the output that follows it rebuilds exactly the host’s screen, colours and scrollback included', async () => {
    const { session } = await client.create({ argv: BASH, cols: 60, rows: 10 });
    await client.request('session.input', { session, text: 'for i in $(seq 1 40); do printf "\\033[1;3%dmline-%d\\033[0m\\n" $((i % 7)) $i; done\r', origin: 'automation' });
    await client.screenMatching(session, /line-40/);
    const attached = await client.request('session.attach', { session });
    expect(attached).toMatchObject({ generation: 1, cols: 60, rows: 10, instance: expect.any(String) });

    const stream = await host.outputStream(session, attached.output_offset);
    expect(stream.result).toMatchObject({ following: true });
    await client.request('session.input', { session, text: 'echo after-$((6*7))\r', origin: 'automation' });
    await client.screenMatching(session, /^after-42$/m);
    // The host's screen now, and the output offset it stands for: the mirror must be that, cell for cell.
    const now = await client.request('session.attach', { session });

    const mirror = terminal(60, 10);
    await mirror.write(attached.checkpoint);
    await mirror.write(await streamBytes(stream, attached.output_offset, now.output_offset));
    const hosts = terminal(now.cols, now.rows);
    await hosts.write(now.checkpoint);
    expect(textOf(mirror.term)).toMatch(/line-1\n[\s\S]*line-40[\s\S]*after-42/);
    expect(cellsOf(mirror.term)).toEqual(cellsOf(hosts.term));
    // And those are the colours the program wrote: line i bold, in palette colour i % 7.
    for (let i = 1; i <= 40; i++) expect(attributesOf(mirror.term, `line-${i}`)).toEqual(Array(`line-${i}`.length).fill({ palette: true, fg: i % 7, bold: true }));
    mirror.dispose();
    hosts.dispose();
    stream.close();
  });

  test('without follow, the output from an offset comes back whole and contiguous; an offset past the end and a gather out of bounds are refused', async () => {
    const { session } = await client.create({ argv: ['sh', '-c', 'printf "one\\ntwo\\nthree\\n"; sleep 30'] });
    await client.screenMatching(session, /three/);
    const { chunks, end_offset, following } = await client.request('session.output', { session, offset: 0 });
    expect(following).toBe(false);
    const bytes = Buffer.concat(chunks.map((c) => Buffer.from(c.data, 'base64')));
    expect(bytes.length).toBe(end_offset);
    expect(bytes.toString('utf8')).toContain('one\r\ntwo\r\nthree');
    const tail = await client.request('session.output', { session, offset: end_offset - 7 });
    expect(Buffer.from(tail.chunks[0].data, 'base64').toString()).toBe('three\r\n');
    await expect(client.request('session.output', { session, offset: end_offset + 1 })).rejects.toMatchObject({ code: -32602, data: { reason: 'offset_ahead' } });
    // A gather a stream may not ask: refused, and the connection goes on.
    for (const gather_ms of [-1, 1001, 2.5]) {
      await expect(client.request('session.output', { session, offset: 0, follow: true, gather_ms })).rejects.toMatchObject({ code: -32602 });
    }
    expect((await client.request('session.output', { session, offset: end_offset })).end_offset).toBe(end_offset);
  });

  test('a stream on a session that is restarted ends with output_end, and the next generation attaches afresh', async () => {
    const { session } = await client.create({ argv: ['sh', '-c', 'echo first-run; sleep 0.3'] });
    const { end_offset } = await client.request('session.output', { session, offset: 0 });
    const stream = await host.outputStream(session, end_offset);
    await client.frame((f) => f.type === 'lifecycle' && f.session === session && f.lifecycle === 'exited');
    await client.request('session.restart', { session });
    await stream.wait((f) => f.type === 'output_end');
    expect(stream.frames.at(-1)).toMatchObject({ type: 'output_end', session });
    await client.screenMatching(session, /first-run/);
    expect(await client.request('session.attach', { session })).toMatchObject({ generation: 2 });
    stream.close();
  });

  test('while output flows, a stream gathers it into far fewer frames than the program wrote, every byte in order', async () => {
    // 200 lines 2 ms apart, each its own write, once the stream follows: a frame per read would be about 200.
    const lines = `let i = 0; const t = setInterval(() => { process.stdout.write('line-' + ++i + '\\n'); if (i === 200) clearInterval(t); }, 2)`;
    const { session } = await client.create({ argv: [process.execPath, '-e', `process.stdin.once('data', () => { ${lines} }); setTimeout(() => {}, 60000)`] });
    const { end_offset } = await client.request('session.output', { session, offset: 0 });
    const stream = await host.outputStream(session, end_offset, false);
    await client.request('session.input', { session, text: 'go\r', origin: 'automation' });
    await stream.wait((f) => f.type === 'output_data' && Buffer.from(f.data, 'base64').toString().includes('line-200'));
    const data = stream.frames.filter((f) => f.type === 'output_data');
    const text = Buffer.concat(data.map((f) => Buffer.from(f.data, 'base64'))).toString();
    expect(text.match(/line-\d+/g)).toEqual(Array.from({ length: 200 }, (_, i) => `line-${i + 1}`));
    // 0.4 s of output at one frame per 16 ms is about 25; well under the 200 reads it took.
    expect(data.length).toBeLessThan(60);
    stream.close();
  });

  test('a following stream sends keepalives while the pane is quiet, unless it asked for none', async () => {
    const { session } = await client.create({ argv: BASH });
    await client.screenMatching(session, /^bash-[\d.]+[$#] $/m);
    const { end_offset } = await client.request('session.output', { session, offset: 0 });
    // The silent stream first: a keepalive of its own would be due, and sent, before the other's.
    const silent = await host.outputStream(session, end_offset, false);
    const stream = await host.outputStream(session, end_offset);
    expect(await stream.wait((f) => f.type === 'keepalive')).toEqual({ type: 'keepalive', session, offset: end_offset });
    // An answer on the silent stream's connection comes after everything sent on it before.
    await silent.connection.request('host.status', {});
    expect(silent.frames).toEqual([]);
    // The silent stream still carries output.
    await client.request('session.input', { session, text: 'echo after-quiet\r', origin: 'automation' });
    expect(await silent.wait((f) => f.type === 'output_data')).toMatchObject({ type: 'output_data', offset: end_offset });
    stream.close();
    silent.close();
  });
});

describe('a flood of 9 MiB, past the 8 MiB tail', () => {
  const LINES = (9 * MiB) / 64;
  const FILL = ' 0123456789abcdef0123456789abcdef0123456789abcdef012345';
  /** Waits for a line on its terminal, then writes LINES numbered 64-byte lines as fast as the PTY takes them. */
  const FLOODER = `
    const fs = require('fs');
    fs.writeSync(1, 'ready\\n');
    fs.readSync(0, Buffer.alloc(64));
    for (let i = 0; i < ${LINES}; i += 1024) {
      let block = '';
      for (let j = i; j < i + 1024; j++) block += String(j).padStart(8, '0') + '${FILL}\\n';
      fs.writeSync(1, block);
    }
    fs.writeSync(1, 'end-of-flood\\n');
    setInterval(() => {}, 1000);`;
  // What a mirror must receive after 'ready': the echo of the line it waited for, then every line (the PTY sends CR LF).
  const expected = Buffer.from(`go\r\n${Array.from({ length: LINES }, (_, j) => `${String(j).padStart(8, '0')}${FILL}\r\n`).join('')}end-of-flood\r\n`);

  let session: string;
  let start: number;
  let end: number;
  /** A mirror that reads all along. */
  let reader: OutputStream;
  /** A mirror whose socket is not read until the flood is over. */
  let stalled: Socket;

  beforeAll(async () => {
    ({ session } = await client.create({ argv: [process.execPath, '-e', FLOODER], cols: 200, rows: 5 }));
    await client.screenMatching(session, /^ready$/m);
    start = (await client.request('session.output', { session, offset: 0 })).end_offset;
    end = start + expected.length;
    reader = await host.outputStream(session, start);
    stalled = createConnection(host.endpoints.hostSocket);
    await new Promise((resolve) => stalled.once('connect', resolve));
    stalled.write(`{"jsonrpc":"2.0","id":1,"method":"host.hello","params":{"client":"stalled","protocol":1,"secret":"${readHostSecret(host.endpoints.home)}"}}\n`);
    await new Promise((resolve) => stalled.once('data', resolve)); // its answer: hello is done
    stalled.pause();
    stalled.write(`{"jsonrpc":"2.0","id":2,"method":"session.output","params":{"session":"${session}","offset":${start},"follow":true,"keepalive":false}}\n`);
    await client.request('session.input', { session, text: 'go\r', origin: 'automation' });
    // The flood is over once the mirror that reads has it all.
    await reader.wait((f) => f.type === 'output_data' && f.offset + Buffer.from(f.data, 'base64').length >= end, 60_000);
  }, scaled(90_000));

  afterAll(() => {
    reader?.close();
    stalled?.destroy();
  });

  test('a mirror that reads gets every byte, in order, and the host’s terminal parses them all, while another mirror reads nothing', async () => {
    expect((await streamBytes(reader, start, end)).equals(expected)).toBe(true);
    const { text } = await client.request('session.read', { session, lines: 2 });
    expect(text).toBe(`${String(LINES - 1).padStart(8, '0')}${FILL}\nend-of-flood`);
  });

  test('output older than the 8 MiB tail is evicted: the mirror that fell behind gets output_evicted, a read or a stream from there -32021', async () => {
    const { frames, done } = readFramesUntil<OutputFrame>(stalled, (frame) => frame.type === 'output_evicted');
    await done;
    // Contiguous from where it asked to the offset it fell behind at, then only output_evicted.
    let next = start;
    for (const frame of frames.slice(0, -1)) {
      expect(frame).toMatchObject({ type: 'output_data', offset: next });
      if (frame.type === 'output_data') next += Buffer.from(frame.data, 'base64').length;
    }
    expect(frames.at(-1)).toEqual({ type: 'output_evicted', session, offset: next });

    await expect(client.request('session.output', { session, offset: next })).rejects.toMatchObject({ code: -32021 });
    const late = await host.open('late');
    await expect(late.request('session.output', { session, offset: 0, follow: true })).rejects.toMatchObject({ code: -32021 });
    // What the tail still holds streams at once.
    const recent = await host.outputStream(session, end - 100);
    expect(await streamBytes(recent, end - 100, end)).toEqual(expected.subarray(expected.length - 100));
    recent.close();
  });
});
