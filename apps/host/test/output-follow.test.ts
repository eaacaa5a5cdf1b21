// When a `session.output` stream sends (src/output.ts followOutput): while output flows it gathers
// what comes into one frame a gather window; the first output after a quiet spell, and the first
// after a person's input reached the PTY, go at once. In process, with a gather window of a minute,
// so that "gathered" and "sent" differ without a clock in the test.
import type { Connection } from '@paneflow/rpc';
import { followOutput, OutputTail, type OutputSource } from '../src/output';

const MINUTE_MS = 60_000;

/** A session whose output the test writes, and a connection that keeps what is sent to it. */
function following() {
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
  followOutput(connection, session, 0, false, MINUTE_MS);
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

test('output after a quiet spell goes at once; more within the window waits to be gathered', () => {
  const stream = following();
  stream.print('first');
  expect(stream.frames()).toEqual(['first']);
  stream.print('second');
  stream.print('third');
  expect(stream.frames()).toEqual(['first']);
  stream.close();
});

test("a person's input ends the gather: the output after it (its echo) goes at once, with what waited before it", () => {
  const stream = following();
  stream.print('flood-1');
  stream.print('flood-2');
  expect(stream.frames()).toEqual(['flood-1']);
  stream.session.inputs.typedAt = performance.now();
  stream.print('x');
  expect(stream.frames()).toEqual(['flood-1', 'flood-2x']);
  // One frame for the key: what comes next is gathered again.
  stream.print('flood-3');
  expect(stream.frames()).toEqual(['flood-1', 'flood-2x']);
  stream.close();
});
