import fc from 'fast-check';
import { CONFORMANCE_RULES, ConformanceChecker, checkOutput, encode, type CheckOptions, type ConformanceReport, type ReportInput } from '../src';
import { osc, scanAll } from './helpers';

/** The rules that mean a terminal applies nothing of the sequence (OSC7501.md §6). */
const DISCARDING = new Set([
  'framing.too_long', 'framing.aborted', 'framing.unterminated', 'query.malformed', 'grammar.key_too_long',
  'state.missing', 'state.unknown', 'id.invalid', 'app.too_long', 'text.encoded_too_long', 'text.base64',
  'text.decoded_too_long', 'text.utf8', 'text.control',
]);

// Fragments that string together into every framing case, and bodies good and bad.
const fragment = fc.oneof(
  fc.constantFrom(
    '\x1b]7501;', '\x1b]750', '\x1b]75010;', '\x1b', '\x1b\\', '\x07', '\x18', '\x1a', ']', '7501;', '\\', '?',
    'state=working', 'state=done', 'state=blocked:kind=permission:msg=QXBwbHk/', 'state=blocked', ':id=a/b', ':id=a//b',
    'state=clear:id=a', 'state=clear', ':app=x', ':kind=dance', ':progress=101', ':msg=UGxhbg', ':msg=YQpi', ':future=1',
    '\x1b[0m', '\x1b[c', '\x1b]0;title\x07', '\u009c', 'é', '日本', '\r\n', '\x00', '\x01', '=', ':', ' ',
  ),
  fc.string({ maxLength: 12 }),
);
const stream = fc.array(fragment, { maxLength: 40 }).map((parts) => parts.join(''));

function pieces<T extends string | Uint8Array>(input: T, cuts: number[]): T[] {
  const ends = cuts.map((c) => c % (input.length + 1)).sort((a, b) => a - b).concat(input.length);
  let start = 0;
  return ends.map((end) => input.slice(start, (start = end)) as T);
}

describe('conformance properties', () => {
  // Without an answering receiver, reads do not matter: any cut gives the same report.
  const options: CheckOptions = { answers: false };

  test('whole, in random pieces, or unit by unit: the same report (strings)', () => {
    fc.assert(
      fc.property(stream, fc.array(fc.nat(), { maxLength: 8 }), (input, cuts) => {
        const whole = checkOutput([input], options);
        expect(checkOutput(pieces(input, cuts), options)).toEqual(whole);
        expect(checkOutput([...input.split('')], options)).toEqual(whole);
      }),
      { numRuns: 400 },
    );
  });

  test('whole, in random pieces, or byte by byte: the same report (bytes), and the same as the string', () => {
    fc.assert(
      fc.property(stream, fc.array(fc.nat(), { maxLength: 8 }), (input, cuts) => {
        const bytes = new Uint8Array(Buffer.from(input, 'utf8'));
        const whole = checkOutput([bytes], options);
        expect(checkOutput(pieces(bytes, cuts), options)).toEqual(whole);
        expect(checkOutput(Array.from(bytes, (b) => Uint8Array.of(b)), options)).toEqual(whole);
        expect(checkOutput([input], options)).toEqual(whole);
      }),
      { numRuns: 400 },
    );
  });

  test('a surrogate pair cut between two string reads is one character', () => {
    const input = osc('state=idle:😀=1');
    const at = input.indexOf('😀') + 1;
    expect(checkOutput([input.slice(0, at), input.slice(at)])).toEqual(checkOutput([input]));
    // A high surrogate with no pair is U+FFFD, whatever comes next.
    const excerpt = (chunks: (string | Uint8Array)[]) => checkOutput(chunks).findings[0].excerpt;
    expect(excerpt([input.slice(0, at), new Uint8Array(Buffer.from(input.slice(at + 1)))])).toBe('state=idle:\\xef\\xbf\\xbd=1');
    expect(excerpt([input.slice(0, at)])).toBe('state=idle:\\xef\\xbf\\xbd');
  });

  test('the checker finds the sequences the Scanner finds, and fails exactly the ones it discards', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fragment.map((f) => new Uint8Array(Buffer.from(f))), fc.uint8Array({ maxLength: 6 })), { maxLength: 30 }), (parts) => {
        const bytes = new Uint8Array(Buffer.concat(parts));
        const { items } = scanAll(bytes);
        const report = checkOutput([bytes], options);
        const lost = new Set(report.findings.filter((f) => f.rule === 'framing.aborted' || f.rule === 'framing.unterminated').map((f) => f.sequence));
        expect(report.counts.sequences).toBe(items.length + lost.size);
        const indices = Array.from({ length: report.counts.sequences }, (_, i) => i).filter((i) => !lost.has(i));
        items.forEach((item, k) => {
          const rules = report.findings.filter((f) => f.sequence === indices[k]).map((f) => f.rule);
          expect({ type: item.type, discards: rules.some((rule) => DISCARDING.has(rule)) }).toEqual({
            type: item.type,
            discards: item.type === 'discarded',
          });
        });
        const count = (type: string) => items.filter((item) => item.type === type).length;
        expect(report.counts).toEqual({
          sequences: report.counts.sequences,
          reports: count('report'),
          clears: count('clear'),
          queries: count('query'),
          discarded: count('discarded') + lost.size,
        });
      }),
      { numRuns: 1000 },
    );
  });

  // Bodies of fields that probe every key's edge: the lint and the parser must agree on each.
  const value = fc.oneof(
    fc.constantFrom('', 'idle', 'working', 'blocked', 'done', 'error', 'clear', 'IDLE', 'permission', 'auth', 'dance', '007', '101', '+1',
      'a/b', 'a//b', 'a,b', 'ok', 'a'.repeat(33), 'UGxhbg', 'UGxhbg==', 'QQ=', 'YQpi', 'wps=', '/w==', '5a6J5YWo', 'has space', '!!', ' x ', 'é'),
    fc.string({ maxLength: 10 }),
    fc.stringMatching(/^[A-Za-z0-9+/]{0,40}={0,2}$/),
  );
  const key = fc.oneof(fc.constantFrom('state', 'kind', 'progress', 'app', 'id', 'title', 'msg', ' state', 'STATE', '', 'a'.repeat(17)), fc.string({ maxLength: 4 }));
  const field = fc.oneof(fc.tuple(key, value).map(([k, v]) => `${k}=${v}`), fc.constantFrom('', 'oops', '?'));
  const body = fc.array(field, { maxLength: 6 }).map((fields) => fields.join(':'));

  test('a body the parser discards has a violation that says so; an accepted one has none', () => {
    fc.assert(
      fc.property(body, (text) => {
        const bytes = new Uint8Array(Buffer.from(`\x1b]7501;${text}\x1b\\`, 'utf8'));
        const report = checkOutput([bytes], { exited: false });
        const discards = report.findings.some((f) => DISCARDING.has(f.rule) && f.severity === 'violation');
        expect(discards).toBe(report.counts.discarded === 1);
        expect(report.counts.sequences).toBe(1);
      }),
      { numRuns: 3000 },
    );
  });

  const name = fc.stringMatching(/^[A-Za-z0-9_.+-]{1,32}$/);
  const isControl = (c: number) => c < 0x20 || (c >= 0x7f && c <= 0x9f);
  const line = fc.string({ unit: 'grapheme', maxLength: 60 }).filter((s) => ![...s].some((ch) => isControl(ch.codePointAt(0)!)));
  const validReport: fc.Arbitrary<ReportInput> = fc
    .record({
      state: fc.constantFrom('idle', 'working', 'done', 'blocked', 'error', 'clear' as const),
      kind: fc.option(fc.constantFrom('permission', 'question', 'auth' as const)),
      id: fc.option(fc.array(name, { minLength: 1, maxLength: 4 }).map((segments) => segments.join('/'))),
      progress: fc.option(fc.integer({ min: 0, max: 100 })),
      app: fc.option(name),
      title: fc.option(line),
      msg: fc.option(line),
    })
    .map((r) =>
      r.state === 'clear'
        ? { state: r.state, id: r.id }
        : { ...r, kind: r.state === 'blocked' ? r.kind : null, progress: r.state === 'working' || r.state === 'blocked' ? r.progress : null },
    );

  test('whatever the encoder writes passes every field rule', () => {
    fc.assert(
      fc.property(validReport, fc.constantFrom('st', 'bel' as const), (input, terminator) => {
        const report = checkOutput([encode(input, { terminator })], { exited: false });
        const expected = input.state === 'blocked' && !input.kind ? ['kind.missing'] : [];
        const stream = ['order.done_outside_turn', 'order.blocked_outside_turn'];
        expect(report.findings.map((f) => f.rule).filter((rule) => !stream.includes(rule))).toEqual(expected);
      }),
      { numRuns: 1000 },
    );
  });

  function wellFormed(report: ConformanceReport) {
    expect(['conformant', 'conformant_with_warnings', 'not_conformant', 'silent']).toContain(report.verdict);
    let last = -1;
    for (const finding of report.findings) {
      expect(CONFORMANCE_RULES).toContainEqual(expect.objectContaining({ rule: finding.rule, section: finding.section, severity: finding.severity }));
      expect(finding.message).toMatch(/^[^\n]+$/);
      const at = finding.sequence ?? Infinity;
      expect(at).toBeGreaterThanOrEqual(last);
      last = at;
      if (finding.sequence !== null) expect(finding.sequence).toBeLessThan(report.counts.sequences);
      if (finding.excerpt !== null) expect(finding.excerpt).toMatch(/^[\x20-\x7e]{0,80}…?$/);
    }
  }

  test('random bytes never throw, and every report is well formed', () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 3000 }), { maxLength: 4 }), fc.boolean(), (chunks, answers) => {
        wellFormed(checkOutput(chunks, { answers }));
      }),
      { numRuns: 300 },
    );
    fc.assert(
      fc.property(fc.array(stream, { maxLength: 5 }), fc.boolean(), (chunks, answers) => {
        const checker = new ConformanceChecker({ answers });
        for (const chunk of chunks) {
          checker.feed(chunk);
          wellFormed(checker.report());
        }
        checker.exit();
        wellFormed(checker.report());
      }),
      { numRuns: 300 },
    );
  });

  test('long output: bodies past the limit are counted, not kept', () => {
    const huge = `\x1b]7501;state=idle:x=${'y'.repeat(1 << 20)}\x07`;
    const report = checkOutput([huge, 'z'.repeat(1 << 20)]);
    expect(report.findings.map((f) => [f.rule, f.message])).toEqual([['framing.too_long', `the sequence is ${7 + 13 + (1 << 20) + 1} bytes, over 4096: a terminal discards it`]]);
  });
});
