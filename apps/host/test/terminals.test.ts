// The terminals' thread and the host's side of it, in process: both ends served over a real
// MessageChannel, so every message is cloned and delivered a turn later, as between threads
// (the host's binary runs the same code on a worker thread; every other host test drives that).
import { ErrorCode, RpcError } from '@paneflow/protocol';
import { MessageChannel } from 'node:worker_threads';
import { serveTerminals } from '../src/terminal-thread';
import { TerminalPool, wholeCharacters, type RemoteTerminalEvents } from '../src/terminals';

/** The events a session would hear, in order, as short strings. */
function recorder() {
  const heard: string[] = [];
  const events: RemoteTerminalEvents = {
    recordsChanged: () => heard.push('records'),
    signalled: () => heard.push('signalled'),
    marked: () => heard.push('marked'),
    title: (title) => heard.push(`title ${title}`),
    parsed: (bytes, writes) => heard.push(`parsed ${bytes} in ${writes}`),
    reply: (data) => heard.push(`reply ${JSON.stringify(data.toString())}`),
    failed: (message) => heard.push(`failed ${message}`),
  };
  return { heard, events };
}

let channel: MessageChannel;
let posted: unknown[][];
let pool: TerminalPool;

beforeEach(() => {
  channel = new MessageChannel();
  serveTerminals(channel.port2);
  posted = [];
  const port = channel.port1;
  pool = new TerminalPool({
    postMessage: (messages) => {
      posted.push(messages as unknown[]);
      port.postMessage(messages);
    },
    on: (event, listener) => port.on(event, listener),
  });
});

afterEach(() => {
  channel.port1.close();
});

test('what the terminal parses comes back in stream order: replies, records, title, and the writes parsed, counted', async () => {
  const { heard, events } = recorder();
  const terminal = pool.open(80, 24, 1000, events);
  const writes = ['hello\r\n', '\x1b]0;build\x07', '\x1b]7501;state=working:msg=dGVzdHM=\x1b\\', '\x1b[c', 'bye\r\n'];
  for (const data of writes) terminal.write(Buffer.from(data));
  await terminal.settled();
  const bytes = writes.reduce((sum, data) => sum + Buffer.byteLength(data), 0);
  // The parsed writes between events go back as one message each, and count every write.
  expect(heard).toEqual([
    `parsed ${Buffer.byteLength(writes[0])} in 1`,
    'title build',
    `parsed ${Buffer.byteLength(writes[1])} in 1`,
    'signalled',
    'marked',
    'records',
    `parsed ${Buffer.byteLength(writes[2])} in 1`,
    'reply "\\u001b[?1;2c"',
    `parsed ${Buffer.byteLength(writes[3]) + Buffer.byteLength(writes[4])} in 2`,
  ]);
  expect(terminal.parsed).toBe(bytes);
  expect(terminal.records()).toEqual([expect.objectContaining({ state: 'working', msg: 'tests' })]);
  expect(terminal.declaredStatus()).toEqual(expect.objectContaining({ state: 'working', message: 'tests' }));
  // Sent in one turn, the open, the five writes and the question went over as one message.
  expect(posted.map((messages) => messages.map((m) => (m as { type: string }).type))).toEqual([['open', 'write', 'write', 'write', 'write', 'write', 'ask']]);
});

test('input modes follow what was parsed, and a user’s input drops done records before it is answered', async () => {
  const terminal = pool.open(80, 24, 1000, recorder().events);
  expect(terminal.modes).toEqual({ bracketedPaste: false, applicationCursorKeys: false });
  terminal.write(Buffer.from('\x1b[?2004h\x1b[?1h'));
  await terminal.settled();
  expect(terminal.modes).toEqual({ bracketedPaste: true, applicationCursorKeys: true });
  const done = '\x1b]7501;state=done\x1b\\';
  terminal.write(Buffer.from(done));
  await terminal.settled();
  expect(terminal.records()).toEqual([expect.objectContaining({ state: 'done' })]);
  await terminal.userInput();
  expect(terminal.records()).toEqual([]);
});

test('a terminal skimming a flood takes the writes that waited together, and counts every one', async () => {
  const { heard, events } = recorder();
  const terminal = pool.open(80, 24, 100_000, events);
  const flood = Array.from({ length: 20_000 }, (_, i) => `\x1b[32m+\x1b[0m line ${i} ${'.'.repeat(i % 70)}\r\n`).join('');
  // Cut as PTY reads are, anywhere in a line.
  const writes: string[] = [];
  for (let at = 0; at < flood.length; at += 4000) writes.push(flood.slice(at, at + 4000));
  for (const data of writes) terminal.write(Buffer.from(data));
  await terminal.settled();
  const parsed = heard.filter((event) => event.startsWith('parsed')).map((event) => event.split(' ').map(Number));
  expect(parsed.reduce((sum, [, bytes]) => sum + bytes, 0)).toBe(Buffer.byteLength(flood));
  expect(parsed.reduce((sum, [, , , writes]) => sum + writes, 0)).toBe(writes.length);
  const read = await terminal.read(3);
  expect(read).toEqual(expect.objectContaining({ text: ['line 19997', 'line 19998', 'line 19999'].map((line, k) => `+ ${line} ${'.'.repeat((19_997 + k) % 70)}`).join('\n'), total_lines: 20_000 }));
  expect((await terminal.search('line 7 ')).matches).toEqual([{ line: 8, text: '+ line 7 .......' }]);
});

test('output goes over as the bytes read, each write up to its last whole character: a split one comes out whole, and no offset falls inside it', async () => {
  const { heard, events } = recorder();
  const terminal = pool.open(80, 24, 1000, events);
  const bytes = Buffer.from('日本\r\n');
  terminal.write(bytes.subarray(0, 4));
  // 日 is parsed; the first byte of 本 waits for the rest.
  await expect(terminal.checkpoint(0, 0)).resolves.toMatchObject({ output_offset: 3 });
  expect(terminal.resize(80, 24)).toBe(3);
  terminal.write(bytes.subarray(4));
  await expect(terminal.read(1)).resolves.toMatchObject({ text: '日本' });
  expect(terminal.parsed).toBe(bytes.length);
  expect(heard).toEqual([`parsed 3 in 1`, `parsed ${bytes.length - 3} in 1`]);
});

test('wholeCharacters: where a read ends on a character’s end', () => {
  const cut = (text: string, drop: number) => wholeCharacters(Buffer.from(text).subarray(0, Buffer.byteLength(text) - drop));
  expect(cut('ab', 0)).toBe(2);
  expect(cut('a日', 1)).toBe(1);
  expect(cut('a日', 2)).toBe(1);
  expect(cut('a日', 0)).toBe(4);
  expect(cut('a😀', 1)).toBe(1);
  expect(cut('a😀', 3)).toBe(1);
  expect(cut('aé', 1)).toBe(1);
  // Not UTF-8: counted whole, for the decoder to make U+FFFD of.
  expect(wholeCharacters(Uint8Array.of(0x61, 0x80, 0x80, 0x80, 0x80))).toBe(5);
  expect(wholeCharacters(Uint8Array.of(0x61, 0xff))).toBe(2);
  expect(wholeCharacters(Uint8Array.of(0xe6, 0x97, 0xa5, 0x97))).toBe(4);
});

test('a resize comes after the output written before it, at the offset it returns', async () => {
  const { heard, events } = recorder();
  const terminal = pool.open(20, 5, 1000, events);
  // Thirty characters, then where the cursor is: at 20 columns it wrapped to the second row.
  const before = `${'x'.repeat(30)}\x1b[6n`;
  terminal.write(Buffer.from(before));
  // Not parsed yet; still the resize comes after it.
  expect(terminal.resize(40, 5)).toBe(before.length);
  await terminal.settled();
  // Had it come first, the thirty would have fit the first row: 1;31.
  expect(heard.filter((event) => event.startsWith('reply'))).toEqual(['reply "\\u001b[2;11R"']);
  const checkpoint = await terminal.checkpoint(1000, 1024 * 1024);
  expect(checkpoint).toEqual(expect.objectContaining({ cols: 40, rows: 5, output_offset: before.length, dropped_rows: 0 }));
});

test('a refusal comes back as the RpcError it was; a closed terminal has nothing to wait for and nothing to read', async () => {
  const terminal = pool.open(80, 24, 1000, recorder().events);
  terminal.write(Buffer.from('one\r\ntwo'));
  const refused = terminal.read(10, 5);
  await expect(refused).rejects.toBeInstanceOf(RpcError);
  await expect(refused).rejects.toMatchObject({ code: ErrorCode.InvalidParams, data: { reason: 'offset_out_of_range', field: 'offset' } });
  await expect(terminal.search('TWO')).resolves.toEqual({ matches: [{ line: 2, text: 'two' }], truncated: false });
  // Asked, then closed before its turn came: the terminal is gone.
  const search = terminal.search('TWO');
  terminal.dispose();
  await expect(search).rejects.toMatchObject({ code: ErrorCode.NotFound, data: { reason: 'session_gone' } });
  await expect(terminal.settled()).resolves.toBeUndefined();
  await expect(terminal.processExit()).resolves.toBeUndefined();
  await expect(terminal.read()).rejects.toMatchObject({ code: ErrorCode.NotFound, data: { reason: 'session_gone' } });
});

test('a terminal that throws is closed alone: its session hears why, the other terminals go on', async () => {
  const broken = recorder();
  const other = recorder();
  const one = pool.open(80, 24, 1000, broken.events);
  const two = pool.open(80, 24, 1000, other.events);
  // xterm refuses a size that is not a whole number, on the thread, in the resize's turn.
  one.resize(80.5, 24);
  one.write(Buffer.from('lost\r\n'));
  two.write(Buffer.from('still here\r\n'));
  await expect(two.read(1)).resolves.toMatchObject({ text: 'still here' });
  expect(broken.heard).toEqual(['failed This API only accepts integers']);
  await expect(one.read()).rejects.toMatchObject({ code: ErrorCode.NotFound, data: { reason: 'session_gone' } });
  await expect(one.settled()).resolves.toBeUndefined();
});
