// When a `session.output` stream sends (src/output.ts followOutput): output waits a gather window
// for more and goes in one frame; the first output after a person's input reached the PTY goes at
// once, with what waited before it. In process, on jest's clock.
import { OUTPUT_GATHER_MS } from '@paneflow/protocol';
import type { Connection } from '@paneflow/rpc';
import { followOutput, OutputTail, type OutputSource } from '../src/output';

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

/** A session whose output the test writes, and a connection that keeps what is sent to it; `gatherMs` as the stream asked. */
function following(gatherMs?: number) {
  const watchers = new Set<() => void>();
  const session = {
    id: 's1',
    output: new OutputTail(),
    resizes: [],
    inputs: { typedAt: -Infinity },
    disposed: false,
    watchOutput(listener: () => void) {
      watchers.add(listener);
      return () => watchers.delete(listener);
    },
  } satisfies OutputSource;
  const sent: { type: string; data?: string }[] = [];
  const closers: (() => void)[] = [];
  const connection = {
    closed: false,
    bufferedBytes: 0,
    send: (frame: { type: string; data?: string }) => sent.push(frame) > 0,
    onDrain: () => undefined,
    onClose: (listener: () => void) => closers.push(listener),
  } as unknown as Connection;
  followOutput(connection, session, 0, { keepalive: false, gatherMs });
  return {
    session,
    /** The program printed `text`. */
    print(text: string) {
      session.output.append(Buffer.from(text));
      for (const watcher of watchers) watcher();
    },
    /** The text of every output frame sent so far, one string each. */
    frames: () => sent.filter((f) => f.type === 'output_data').map((f) => Buffer.from(f.data!, 'base64').toString()),
    close: () => closers.forEach((close) => close()),
  };
}

test('output waits the gather window for more, after a quiet spell too, and goes in one frame', () => {
  const stream = following();
  stream.print('text');
  stream.print('\x1b]7501;state=done\x1b\\');
  jest.advanceTimersByTime(OUTPUT_GATHER_MS - 1);
  expect(stream.frames()).toEqual([]);
  jest.advanceTimersByTime(1);
  expect(stream.frames()).toEqual(['text\x1b]7501;state=done\x1b\\']);
  // Still flowing: the next frame gathers as long.
  stream.print('more');
  jest.advanceTimersByTime(OUTPUT_GATHER_MS - 1);
  stream.print(' and more');
  expect(stream.frames()).toHaveLength(1);
  jest.advanceTimersByTime(1);
  expect(stream.frames().at(-1)).toBe('more and more');
  stream.close();
});

test('a stream that asks a gather of its own holds output that long, and the echo still goes at once', () => {
  const stream = following(33);
  stream.print('line 1\r\n');
  jest.advanceTimersByTime(20);
  stream.print('line 2\r\n');
  jest.advanceTimersByTime(12);
  expect(stream.frames()).toEqual([]);
  jest.advanceTimersByTime(1);
  expect(stream.frames()).toEqual(['line 1\r\nline 2\r\n']);
  jest.advanceTimersByTime(5);
  stream.session.inputs.typedAt = performance.now();
  stream.print('x');
  expect(stream.frames()).toEqual(['line 1\r\nline 2\r\n', 'x']);
  stream.close();
});

test("a person's input ends the gather: the output after it (its echo) goes at once, with what waited before it", () => {
  const stream = following();
  stream.print('flood-1');
  expect(stream.frames()).toEqual([]);
  stream.session.inputs.typedAt = performance.now();
  stream.print('x');
  expect(stream.frames()).toEqual(['flood-1x']);
  // One frame for the key: what comes next is gathered again.
  stream.print('flood-2');
  expect(stream.frames()).toEqual(['flood-1x']);
  jest.advanceTimersByTime(OUTPUT_GATHER_MS);
  expect(stream.frames()).toEqual(['flood-1x', 'flood-2']);
  stream.close();
});
