import fc from 'fast-check';
import { Scanner, encode, parse, type Parsed, type ReportInput } from '../src';
import { report, scanAll } from './helpers';

// Fragments that exercise every state of the scanner when strung together at random.
const fragment = fc.oneof(
  fc.constantFrom(
    '\x1b]7501;', '\x1b]750', '\x1b]75010;', '\x1b', '\x1b\\', '\x07', '\x18', '\x1a', ']', '7501;', '\\',
    'state=working', 'state=blocked:kind=permission:msg=QXBwbHk/', ':id=a/b', '?', 'state=clear:id=a',
    '\x1b[0m', '\x1b]0;title\x07', '\u009c', 'é', '日本', '\r\n', '\x00', '=', ':',
  ),
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 8 }),
);
const stream = fc.array(fragment, { maxLength: 40 }).map((parts) => parts.join(''));

function feedInPieces(input: string | Uint8Array, cuts: number[]): { items: Parsed[]; text: string } {
  const scanner = new Scanner();
  const items: Parsed[] = [];
  let text = '';
  let start = 0;
  for (const cut of [...cuts.map((c) => c % (input.length + 1))].sort((a, b) => a - b).concat(input.length)) {
    const result = scanner.feed(input.slice(start, cut));
    items.push(...result.items);
    text += result.text;
    start = cut;
  }
  return { items, text: text + scanner.flush() };
}

/**
 * A reference reading of OSC7501.md §2, written for clarity, not speed: the whole input at once,
 * one unit at a time. The scanner must agree with it on every stream.
 */
function reference(input: string): { items: Parsed[]; text: string } {
  const items: Parsed[] = [];
  let text = '';
  let i = 0;
  while (i < input.length) {
    if (!input.startsWith('\x1b]7501;', i)) {
      text += input[i++];
      continue;
    }
    let j = i + 7;
    let body = '';
    let terminator: 'st' | 'bel' | 'aborted' | null = null;
    while (j < input.length && terminator === null) {
      const c = input.charCodeAt(j);
      if (c === 0x07) {
        terminator = 'bel';
        j++;
      } else if (c === 0x1b) {
        terminator = 'st';
        // ESC \ is ST; any other ESC ends the body and begins what follows it
        if (input[j + 1] === '\\') j += 2;
      } else if (c === 0x18 || c === 0x1a) {
        terminator = 'aborted';
        j++;
      } else {
        if (c >= 0x20) body += input[j];
        j++;
      }
    }
    if (terminator === 'st' || terminator === 'bel') {
      const limit = terminator === 'bel' ? 4088 : 4087;
      items.push(Buffer.byteLength(body) > limit ? { type: 'discarded', reason: 'sequence_too_long' } : parse(body, terminator));
    }
    if (terminator === null) break; // never ended: dropped
    i = j;
  }
  return { items, text };
}

describe('properties', () => {
  test('the scanner agrees with a plain reading of the framing rules', () => {
    fc.assert(
      fc.property(stream, fc.array(fc.nat(), { maxLength: 8 }), (input, cuts) => {
        expect(feedInPieces(input, cuts)).toEqual(reference(input));
      }),
      { numRuns: 1000 },
    );
  });

  test('split passes byte chunks through byte for byte, malformed UTF-8 included', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fragment.map((f) => Buffer.from(f)), fc.uint8Array({ maxLength: 6 })), { maxLength: 30 }), fc.array(fc.nat(), { maxLength: 6 }), (parts, cuts) => {
        const bytes = new Uint8Array(Buffer.concat(parts));
        const scanner = new Scanner();
        const out: Buffer[] = [];
        let start = 0;
        for (const cut of [...cuts.map((c) => c % (bytes.length + 1))].sort((a, b) => a - b).concat(bytes.length)) {
          for (const piece of scanner.split(bytes.subarray(start, cut))) if (piece instanceof Uint8Array) out.push(Buffer.from(piece));
          start = cut;
        }
        out.push(Buffer.from(scanner.flush(), 'latin1'));
        const expected = reference(Buffer.from(bytes).toString('latin1')).text;
        expect(Buffer.concat(out).equals(Buffer.from(expected, 'latin1'))).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  test('random bytes never throw', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 6000 }), (bytes) => {
        const { items } = scanAll(bytes);
        for (const item of items) expect(['report', 'clear', 'query', 'discarded']).toContain(item.type);
      }),
      { numRuns: 500 },
    );
  });

  test('parse never throws on any string', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 5000 }), (body) => {
        expect(['report', 'clear', 'query', 'discarded']).toContain(parse(body).type);
      }),
      { numRuns: 500 },
    );
  });

  test('whole, in random splits, or unit by unit: the same items and the same text (strings)', () => {
    fc.assert(
      fc.property(stream, fc.array(fc.nat(), { maxLength: 8 }), (input, cuts) => {
        const whole = scanAll(input);
        expect(feedInPieces(input, cuts)).toEqual(whole);
        expect(feedInPieces(input, Array.from({ length: input.length }, (_, i) => i))).toEqual(whole);
      }),
      { numRuns: 400 },
    );
  });

  test('whole, in random splits, or byte by byte: the same items and the same text (bytes)', () => {
    fc.assert(
      fc.property(stream, fc.array(fc.nat(), { maxLength: 8 }), (input, cuts) => {
        const bytes = new Uint8Array(Buffer.from(input, 'utf8'));
        const whole = scanAll(bytes);
        expect(feedInPieces(bytes, cuts)).toEqual(whole);
        expect(feedInPieces(bytes, Array.from({ length: bytes.length }, (_, i) => i))).toEqual(whole);
        // strings and their UTF-8 bytes find the same sequences
        expect(whole.items).toEqual(scanAll(input).items);
      }),
      { numRuns: 400 },
    );
  });

  test('input without an OSC 7501 introducer passes through byte-identical', () => {
    const noIntroducer = stream.filter((s) => !s.includes('\x1b]7501;'));
    fc.assert(
      fc.property(noIntroducer, fc.array(fc.nat(), { maxLength: 8 }), (input, cuts) => {
        expect(feedInPieces(input, cuts)).toEqual({ items: [], text: input });
        const bytes = Buffer.from(input, 'utf8');
        const { items, text } = feedInPieces(new Uint8Array(bytes), cuts);
        expect(items).toEqual([]);
        expect(Buffer.from(text, 'utf8').equals(bytes)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  const name = fc.stringMatching(/^[A-Za-z0-9_.+-]{1,32}$/);
  const id = fc.array(name, { minLength: 1, maxLength: 4 }).map((segments) => segments.join('/'));
  const isControl = (c: number) => c < 0x20 || (c >= 0x7f && c <= 0x9f);
  const line = fc
    .string({ unit: 'grapheme', maxLength: 60 })
    .filter((s) => ![...s].some((ch) => isControl(ch.codePointAt(0)!)));
  const validReport: fc.Arbitrary<ReportInput> = fc
    .record({
      state: fc.constantFrom('idle', 'working', 'done', 'blocked', 'error' as const),
      kind: fc.option(fc.constantFrom('permission', 'question', 'auth' as const)),
      id: fc.option(id),
      progress: fc.option(fc.integer({ min: 0, max: 100 })),
      app: fc.option(name),
      title: fc.option(line),
      msg: fc.option(line),
    })
    .map((r) => ({
      ...r,
      kind: r.state === 'blocked' ? r.kind : null,
      progress: r.state === 'working' || r.state === 'blocked' ? r.progress : null,
    }));

  test('encode → scan → parse round-trips every valid report', () => {
    fc.assert(
      fc.property(validReport, fc.constantFrom('st', 'bel' as const), (input, terminator) => {
        const sequence = encode(input, { terminator });
        const expected = report({
          state: input.state as never,
          kind: input.kind ?? null,
          id: input.id ?? null,
          progress: input.progress ?? null,
          app: input.app ?? null,
          title: input.title || null,
          msg: input.msg || null,
        });
        expect(scanAll(sequence)).toEqual({ items: [expected], text: '' });
        expect(parse(sequence.slice(7, terminator === 'st' ? -2 : -1))).toEqual(expected);
      }),
      { numRuns: 1000 },
    );
  });
});
