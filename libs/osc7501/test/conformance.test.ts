import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONFORMANCE_RULES, ConformanceChecker, checkOutput, type CheckOptions, type Verdict } from '../src';
import { BEL, ESC, ST, b64, osc } from './helpers';

type Chunk = string | Uint8Array;
const bytes = (...parts: (string | number)[]) =>
  new Uint8Array(parts.flatMap((part) => (typeof part === 'number' ? [part] : [...Buffer.from(part, 'latin1')])));
const rules = (chunks: Chunk[], options?: CheckOptions) => checkOutput(chunks, options).findings.map((f) => f.rule);
const idle = osc('state=idle');

interface Case {
  section: string;
  severity: 'violation' | 'warning';
  /** A stream that breaks the rule. */
  trigger: Chunk[];
  /** A near miss that must not: conformant unless `cleanVerdict` says otherwise. */
  clean: Chunk[];
  cleanVerdict?: Verdict;
  options?: CheckOptions;
}

const hundredIds = (n: number) => Array.from({ length: n }, (_, i) => osc(`state=idle:id=r${i}`));

const CASES: Record<string, Case> = {
  'framing.too_long': {
    section: '§2.4', severity: 'violation',
    trigger: [osc('state=working' + ':'.repeat(4088 - 13))],
    clean: [osc('state=idle' + ':'.repeat(4088 - 10), BEL)], cleanVerdict: 'conformant_with_warnings',
  },
  'framing.aborted': { section: '§2.6', severity: 'violation', trigger: [`${ESC}]7501;state=id\x18le${ST}`], clean: [idle] },
  'framing.unterminated': { section: '§2.1', severity: 'violation', trigger: [`${ESC}]7501;state=idle`], clean: [idle] },
  'framing.c1_terminator': {
    section: '§2.3', severity: 'violation',
    trigger: [bytes(`${ESC}]7501;state=idle`, 0x9c, `then text${BEL}`)],
    // U+271C is E2 9C 9C: its 0x9C bytes belong to a character (the unknown key makes the warning)
    clean: [bytes(`${ESC}]7501;state=idle:`, 0xe2, 0x9c, 0x9c, `=1${BEL}`)], cleanVerdict: 'conformant_with_warnings',
  },
  'framing.control_dropped': { section: '§2.6', severity: 'warning', trigger: [`${ESC}]7501;state=id\x01le${ST}`], clean: [idle] },
  'framing.esc_terminator': { section: '§2.7', severity: 'warning', trigger: [`${ESC}]7501;state=idle${ESC}[0m`], clean: [osc('state=idle', BEL) + `${ESC}[0m`] },
  'query.malformed': { section: '§7.1', severity: 'violation', trigger: [osc('??')], clean: [osc('?', BEL)] },
  'grammar.key_too_long': {
    section: '§3.5', severity: 'violation',
    trigger: [osc(`state=idle:${'a'.repeat(17)}=1`)],
    clean: [osc(`state=idle:${'a'.repeat(16)}=1`)], cleanVerdict: 'conformant_with_warnings',
  },
  'state.missing': { section: '§4', severity: 'violation', trigger: [osc('progress=50')], clean: [idle] },
  'state.unknown': { section: '§4', severity: 'violation', trigger: [osc('state=IDLE')], clean: [idle] },
  'id.invalid': { section: '§4', severity: 'violation', trigger: [osc('state=clear:id=a//b')], clean: [osc('state=clear:id=a/b')] },
  'app.too_long': {
    section: '§6.3', severity: 'violation',
    trigger: [osc(`state=idle:app=${'a'.repeat(33)}:app=ok`)],
    clean: [osc(`state=idle:app=${'a'.repeat(32)}`)],
  },
  'text.encoded_too_long': {
    section: '§6.3', severity: 'violation',
    trigger: [osc(`state=idle:title=${'A'.repeat(260)}:title=UGxhbg==`)],
    clean: [osc(`state=idle:title=${b64('x'.repeat(192))}`)],
  },
  'text.base64': { section: '§5.1', severity: 'violation', trigger: [osc('state=idle:msg=QQ=')], clean: [osc('state=idle:msg=QQ==')] },
  'text.decoded_too_long': {
    section: '§5.3', severity: 'violation',
    trigger: [osc(`state=idle:msg=${b64('x'.repeat(2049))}`)],
    clean: [osc(`state=idle:msg=${b64('x'.repeat(2048))}`)],
  },
  'text.utf8': { section: '§5.2', severity: 'violation', trigger: [osc('state=idle:msg=/w==')], clean: [osc('state=idle:msg=5a6J5YWo')] },
  'text.control': { section: '§5.2', severity: 'violation', trigger: [osc('state=idle:msg=YQpi')], clean: [osc(`state=idle:msg=${b64('a b')}`)] },
  'grammar.value_alphabet': { section: '§3.7', severity: 'violation', trigger: [osc('state=idle:app=b@d')], clean: [osc('state=idle:app=bd')] },
  'kind.unknown': {
    section: '§4', severity: 'violation',
    trigger: [osc('state=working'), osc('state=blocked:kind=dance'), idle],
    clean: [osc('state=working'), osc('state=blocked:kind=question'), idle],
  },
  'progress.invalid': {
    section: '§4', severity: 'violation',
    trigger: [osc('state=working:progress=101'), idle],
    clean: [osc('state=working:progress=100'), idle],
  },
  'app.invalid': { section: '§4', severity: 'violation', trigger: [osc('state=idle:app=a/b')], clean: [osc('state=idle:app=a.b')] },
  'grammar.empty_field': { section: '§3.1', severity: 'warning', trigger: [osc('state=idle::app=x')], clean: [osc('state=idle:app=x')] },
  'grammar.no_equals': { section: '§3.2', severity: 'warning', trigger: [osc('state=idle:oops')], clean: [idle] },
  'grammar.whitespace': { section: '§3.4', severity: 'warning', trigger: [osc('state= idle')], clean: [idle] },
  'grammar.unknown_key': { section: '§3.6', severity: 'warning', trigger: [osc('state=idle:future=yes')], clean: [idle] },
  'grammar.repeated_key': { section: '§3.8', severity: 'warning', trigger: [osc('state=idle:app=a:app=b')], clean: [osc('state=idle:app=b')] },
  'kind.ignored': { section: '§4', severity: 'warning', trigger: [osc('state=idle:kind=auth')], clean: [osc('state=blocked:kind=auth'), idle] },
  'kind.missing': {
    section: '§4', severity: 'warning',
    trigger: [osc('state=working'), osc('state=blocked'), idle],
    clean: [osc('state=working'), osc('state=blocked:kind=permission'), idle],
  },
  'progress.ignored': { section: '§4', severity: 'warning', trigger: [osc('state=idle:progress=10')], clean: [osc('state=working:progress=10'), idle] },
  'clear.extra_keys': { section: '§8.4', severity: 'warning', trigger: [osc('state=clear:app=x')], clean: [osc('state=clear:id=x')] },
  'text.unpadded': { section: '§14', severity: 'warning', trigger: [osc('state=idle:msg=UGxhbg')], clean: [osc('state=idle:msg=UGxhbg==')] },
  'text.empty': { section: '§5.5', severity: 'warning', trigger: [osc('state=idle:msg=')], clean: [idle] },
  'order.before_reply': {
    section: '§7.3', severity: 'violation',
    trigger: [osc('?', BEL) + `${ESC}[c` + idle],
    clean: [osc('?', BEL) + `${ESC}[c`, idle],
  },
  'order.reported_unanswered': {
    section: '§7', severity: 'violation', options: { answers: false },
    trigger: [osc('?', BEL), idle],
    // no reply, so the program stays silent; or it never asks and reports unconditionally
    clean: [osc('?', BEL), 'plain text'],
  },
  'order.done_outside_turn': {
    section: '§8', severity: 'warning',
    trigger: [idle, osc('state=done')],
    clean: [idle, osc('state=working'), osc('state=done')],
  },
  'order.blocked_outside_turn': {
    section: '§8', severity: 'warning',
    trigger: [idle, osc('state=blocked:kind=permission'), idle],
    clean: [osc('state=blocked:kind=auth'), idle],
  },
  'records.evicted': { section: '§9', severity: 'warning', trigger: hundredIds(257), clean: hundredIds(256) },
  'exit.left_in_turn': { section: '§10', severity: 'warning', trigger: [osc('state=working')], clean: [osc('state=working'), osc('state=clear')] },
};

describe('conformance rules', () => {
  test('every rule in CONFORMANCE_RULES has a case here, and every case a rule', () => {
    expect(Object.keys(CASES).sort()).toEqual(CONFORMANCE_RULES.map((r) => r.rule).sort());
    expect(new Set(CONFORMANCE_RULES.map((r) => r.rule)).size).toBe(CONFORMANCE_RULES.length);
    for (const info of CONFORMANCE_RULES) {
      expect(info.section).toMatch(/^§\d+(\.\d+)?$/);
      expect(info.summary).toMatch(/^\S.*\.$/);
      expect(info.summary).not.toMatch(/\n/);
    }
  });

  test("the README's table lists every rule with its section and severity", () => {
    const readme = readFileSync(join(__dirname, '../README.md'), 'utf8');
    const rows = readme.split('\n').filter((line) => /^\| `[a-z_.0-9]+` \|/.test(line));
    expect(rows).toEqual(CONFORMANCE_RULES.map((r) => `| \`${r.rule}\` | ${r.section} | ${r.severity} | ${r.summary} |`));
  });

  describe.each(Object.entries(CASES))('%s', (rule, c) => {
    test(`breaking it gives a ${c.severity} citing ${c.section}`, () => {
      const report = checkOutput(c.trigger, c.options);
      const found = report.findings.filter((f) => f.rule === rule);
      expect(found.length).toBeGreaterThan(0);
      for (const finding of found) {
        expect(finding).toMatchObject({ section: c.section, severity: c.severity });
        expect(finding.message).toMatch(/^\S[^\n]*$/);
      }
      expect(report.verdict).toEqual(c.severity === 'violation' ? 'not_conformant' : expect.stringMatching(/^(conformant_with_warnings|not_conformant)$/));
      expect(CONFORMANCE_RULES.find((r) => r.rule === rule)).toMatchObject({ section: c.section, severity: c.severity });
    });

    test('the near miss does not', () => {
      const report = checkOutput(c.clean, c.options);
      expect(report.findings.filter((f) => f.rule === rule)).toEqual([]);
      expect(report.verdict).toBe(c.cleanVerdict ?? 'conformant');
    });
  });
});

describe('findings', () => {
  test('name their sequence in stream order, with its body as an excerpt', () => {
    const report = checkOutput([idle, osc('?') + osc('state=idle:future=yes') + osc('state=idle:\xff=1')]);
    expect(report.findings).toEqual([
      {
        severity: 'warning', rule: 'grammar.unknown_key', section: '§3.6', sequence: 2, excerpt: 'state=idle:future=yes',
        message: 'unknown key "future": a terminal ignores the field',
      },
      expect.objectContaining({ rule: 'order.before_reply', sequence: 2 }),
      expect.objectContaining({ rule: 'grammar.unknown_key', sequence: 3, excerpt: 'state=idle:\\xc3\\xbf=1', message: expect.stringContaining('"\\xc3\\xbf"') }),
      expect.objectContaining({ rule: 'order.before_reply', sequence: 3 }),
    ]);
    expect(report.counts).toEqual({ sequences: 4, reports: 3, clears: 0, queries: 1, discarded: 0 });
  });

  test('excerpts show dropped controls and escapes, and stop at 80 chars', () => {
    const [dropped] = checkOutput([`${ESC}]7501;state=id\x01le\\${ST}`]).findings;
    expect(dropped.excerpt).toBe('state=id\\x01le\\\\');
    const long = checkOutput([osc('state=idle:future=' + 'x'.repeat(100))]).findings[0].excerpt!;
    expect(long).toBe('state=idle:future=' + 'x'.repeat(62) + '…');
    const escapes = checkOutput([bytes(`${ESC}]7501;state=idle:`, ...Array(30).fill(0xff), `=1${ST}`)]).findings[0].excerpt!;
    expect(escapes).toBe('state=idle:' + '\\xff'.repeat(17) + '…'); // 11 + 68 chars; a 4-char escape more would pass 80
  });

  test('stream-level findings come last, with no sequence', () => {
    const { findings } = checkOutput([osc('state=working'), osc('state=working:id=a:future=1')]);
    expect(findings.map((f) => [f.rule, f.sequence, f.excerpt])).toEqual([
      ['grammar.unknown_key', 1, 'state=working:id=a:future=1'],
      ['exit.left_in_turn', null, null],
      ['exit.left_in_turn', null, null],
    ]);
    expect(findings[1].message).toMatch(/^the root record is still working at exit/);
    expect(findings[2].message).toMatch(/^record "a" is still working at exit/);
  });

  test('a clear of a subtree ends its records: nothing is left in a turn', () => {
    const stream = [osc('state=working:id=build'), osc('state=working:id=build/test'), osc('state=idle:id=buildx'), osc('state=clear:id=build')];
    expect(checkOutput(stream).verdict).toBe('conformant');
    expect(rules(stream.slice(0, 3))).toEqual(['exit.left_in_turn', 'exit.left_in_turn']);
  });

  test('an invalid id says what is wrong with it', () => {
    const message = (id: string) => checkOutput([osc(`state=clear:id=${id}`)]).findings[0].message;
    expect(message('a//b')).toMatch(/^id "a\/\/b" has an empty segment: a terminal discards the whole report/);
    expect(message('a,b')).toMatch(/has a character outside/);
    expect(message('a b')).toMatch(/has a byte outside/);
    expect(message('x'.repeat(33))).toMatch(/has a 33-byte segment, over 32/);
    expect(message(Array(9).fill('a').join('/'))).toMatch(/has 9 segments, over 8/);
    expect(message(Array(5).fill('x'.repeat(30)).join('/'))).toMatch(/is 154 bytes, over 128/);
  });

  test('one cause, one violation', () => {
    expect(rules([osc('state=wo rking')])).toEqual(['state.missing']);
    expect(rules([osc(`state=idle:app=${'a/'.repeat(17)}`)])).toEqual(['app.too_long']);
    expect(rules([osc(`state=idle:title=${'!'.repeat(300)}`)])).toEqual(['grammar.value_alphabet']); // invisible: no limit applies
    expect(rules([osc(`state=idle:msg=${'QQ='.repeat(1000)}`)])).toEqual(['text.encoded_too_long']); // too long to decode
  });

  test('a discarded report counts once as discarded, and its own reason is the violation', () => {
    const report = checkOutput([osc('state=sleeping:future=1')]);
    expect(report.counts).toEqual({ sequences: 1, reports: 0, clears: 0, queries: 0, discarded: 1 });
    expect(report.findings.map((f) => f.rule)).toEqual(['state.unknown', 'grammar.unknown_key']);
  });
});

describe('the checker over time', () => {
  test('report() works before exit, without the at-exit rules, and exit() is idempotent', () => {
    const checker = new ConformanceChecker();
    checker.feed(osc('state=working'));
    expect(checker.report()).toEqual({ verdict: 'conformant', counts: { sequences: 1, reports: 1, clears: 0, queries: 0, discarded: 0 }, findings: [] });
    checker.exit();
    checker.exit();
    expect(checker.report().findings.map((f) => f.rule)).toEqual(['exit.left_in_turn']);
    expect(() => checker.feed(idle)).toThrow(/after exit/);
  });

  test('checkOutput with exited: false leaves the at-exit rules out', () => {
    expect(checkOutput([osc('state=working')], { exited: false }).verdict).toBe('conformant');
    expect(checkOutput([`${ESC}]7501;state=idle`], { exited: false }).verdict).toBe('silent');
  });

  test('a query ended by ESC at the end of a read is answered after that read', () => {
    expect(rules([`${ESC}]7501;?${ESC}`, `\\${osc('state=idle')}`])).toEqual([]);
    expect(rules([`${ESC}]7501;?${ESC}`, `[c${osc('state=idle')}`])).toEqual(['framing.esc_terminator']);
  });

  test('with answers: false, a report before any query is allowed', () => {
    expect(checkOutput([idle, osc('?'), 'text'], { answers: false }).verdict).toBe('conformant');
  });

  test('queries are fine, in either terminator, any number of times', () => {
    const report = checkOutput([osc('?', BEL) + osc('?') + `${ESC}[c`]);
    expect(report).toEqual({ verdict: 'conformant', counts: { sequences: 2, reports: 0, clears: 0, queries: 2, discarded: 0 }, findings: [] });
  });
});

describe('a 0x9C byte', () => {
  const withBody = (...body: (string | number)[]) => [bytes(`${ESC}]7501;state=idle:k=`, ...body, ST)];
  const c1 = (...body: (string | number)[]) => rules(withBody(...body)).includes('framing.c1_terminator');

  test('inside a valid UTF-8 character is no terminator attempt', () => {
    expect(c1(0xc2, 0x9c)).toBe(false); // U+009C
    expect(c1(0xe2, 0x9c, 0x98)).toBe(false); // U+2718
    expect(c1(0xed, 0x9c, 0x80)).toBe(false); // U+D700
    expect(c1(0xf0, 0x9c, 0x80, 0x80)).toBe(false); // U+1C000
    expect(c1(0xe2, 0x01, 0x9c, 0x98)).toBe(false); // the dropped control is no part of the body
  });

  test('anywhere else is one', () => {
    expect(c1(0x9c)).toBe(true);
    expect(c1(0x41, 0x9c)).toBe(true);
    expect(c1(0xe0, 0x9c, 0x80)).toBe(true); // overlong
    expect(c1(0xf4, 0x9c, 0x80, 0x80)).toBe(true); // past U+10FFFF
    expect(c1(0xe2, 0x9c)).toBe(true); // cut short by the terminator
    expect(c1(0xe2, 0x9c, 0x41)).toBe(true); // cut short by ASCII
    expect(c1(0xc2, 0x9c, 0x9c)).toBe(true); // the second is stray
  });

  test('is found across reads, and the message says where', () => {
    const [chunk] = withBody(0xe2, 0x9c);
    const report = checkOutput([chunk.subarray(0, 21), chunk.subarray(21)]);
    expect(report.findings[0]).toMatchObject({ rule: 'framing.c1_terminator', message: expect.stringContaining('body offset 14') });
  });
});

describe('silence', () => {
  test.each([
    ['no output', []],
    ['plain text and other escape sequences', ['hello\r\n', `${ESC}[0m${ESC}]0;title${BEL}`]],
    ['introducers that are not OSC 7501 (§2.2)', [`${ESC}]75010;state=idle${ST}`, `${ESC}]7501${ST}`, `${ESC}]750;x${BEL}`]],
  ])('%s → silent', (_name, chunks) => {
    expect(checkOutput(chunks)).toEqual({ verdict: 'silent', counts: { sequences: 0, reports: 0, clears: 0, queries: 0, discarded: 0 }, findings: [] });
  });
});

describe('stream rules, as real programs meet them', () => {
  test('a second probe after an answered one may share a read with a report (Claude Code probes twice)', () => {
    const probe = osc('?', BEL) + `${ESC}[c`;
    expect(checkOutput([probe, probe + idle, osc('state=working'), osc('state=done')]).verdict).toBe('conformant');
    // before any answer, the same read is still too early
    expect(rules([probe + idle])).toEqual(['order.before_reply']);
  });

  test("a sub-task's question belongs to its program's turn: no outside-turn warning under a working root or parent", () => {
    const underRoot = [osc('state=working'), osc('state=blocked:kind=permission:id=tool1'), osc('state=done:id=tool1'), osc('state=done')];
    expect(checkOutput(underRoot).verdict).toBe('conformant');
    const underParent = [osc('state=working:id=deploy'), osc('state=blocked:kind=question:id=deploy/us-east'), osc('state=clear:id=deploy')];
    expect(checkOutput(underParent).verdict).toBe('conformant');
    // a sibling's turn is not this record's
    expect(rules([osc('state=working:id=a'), osc('state=blocked:kind=question:id=b'), osc('state=clear')])).toEqual(['order.blocked_outside_turn']);
  });

  test('one mistake repeated is listed 20 times, then counted in one line', () => {
    const report = checkOutput(Array.from({ length: 50 }, () => osc('state=idle:future=1')));
    const unknown = report.findings.filter((f) => f.rule === 'grammar.unknown_key');
    expect(unknown).toHaveLength(21);
    expect(unknown[20]).toMatchObject({ sequence: null, message: '30 more like the ones above, not listed' });
    expect(report.verdict).toBe('conformant_with_warnings');
  });
});
