import { checkOutput, encode, encodeQuery, parse, type CheckOptions } from '../src';
import { BEL, ESC, ST, b64, osc } from './helpers';

const rulesOf = (chunks: string[], options?: CheckOptions & { exited?: boolean }) =>
  checkOutput(chunks, options)
    .findings.map((f) => f.rule)
    .sort();

/**
 * OSC7501.md §13, row by row. Each row comes as a program would send it inside a turn (after
 * `state=working`, still running), so only what the row itself does wrong is reported.
 */
const ROWS: [string, string, string[]][] = [
  ['state=working', ST, []],
  ['state=working:id=build/test:progress=40', BEL, []],
  ['state=blocked:kind=permission:app=deploy:msg=QXBwbHk/', ST, []],
  [' state = working : app=cargo ', ST, ['grammar.whitespace', 'grammar.whitespace']],
  ['state=idle:future=yes:oops', ST, ['grammar.no_equals', 'grammar.unknown_key']],
  ['garbage:=x:Bad=1:app=b@d:state=working:app=ok:::', ST, ['grammar.empty_field', 'grammar.no_equals', 'grammar.repeated_key', 'grammar.unknown_key', 'grammar.unknown_key']],
  ['state=IDLE', ST, ['state.unknown']],
  ['progress=50', ST, ['state.missing']],
  ['', ST, ['state.missing']],
  [`state=idle:${'a'.repeat(17)}=1`, ST, ['grammar.key_too_long']],
  [`state=idle:${'a'.repeat(16)}=1`, ST, ['grammar.unknown_key']],
  ['state=done:kind=auth:progress=10', ST, ['kind.ignored', 'progress.ignored']],
  ['state=working:kind=auth:progress=10', ST, ['kind.ignored']],
  ['state=blocked:kind=dance', ST, ['kind.unknown']],
  ['state=working:progress=007', ST, []],
  ['state=working:progress=101', ST, ['progress.invalid']],
  ['state=working:progress=+1', ST, ['progress.invalid']],
  ['state=idle:app=a/b', ST, ['app.invalid']],
  [`state=idle:app=${'a'.repeat(33)}:app=ok`, ST, ['app.too_long', 'grammar.repeated_key']],
  ['state=clear:id=a//b', ST, ['id.invalid']],
  ['state=clear:id=', ST, ['id.invalid']],
  ['state=clear:id=bad!', ST, ['id.invalid']],
  ['state=done:msg=UGxhbg', ST, ['text.unpadded']],
  ['state=done:msg=UGxhbg==', ST, []],
  ['state=done:msg=5a6J5YWo', ST, []],
  ['state=done:msg=YQpi', ST, ['text.control']],
  ['state=done:msg=wps=', ST, ['text.control']],
  ['state=done:msg=/w==', ST, ['text.utf8']],
  ['state=done:msg=QQ=', ST, ['text.base64']],
  ['state=done:msg=:title=', ST, ['text.empty', 'text.empty']],
  ['state=done:msg=has space', ST, ['grammar.value_alphabet']],
  ['state=done:msg=!!', ST, ['grammar.value_alphabet']],
  ['state=clear:id=task:msg=!!', ST, ['clear.extra_keys']],
  ['state=done:msg=a:msg=UGxhbg==', ST, ['grammar.repeated_key']],
  ['state=working:state=sleeping', ST, ['grammar.repeated_key', 'state.unknown']],
  ['state=working:state=wo rking', ST, ['grammar.repeated_key', 'grammar.value_alphabet']],
  ['state=idle:app=a:state=done:app=b', ST, ['grammar.repeated_key', 'grammar.repeated_key']],
  ['state=working' + ':'.repeat(4087 - 13), ST, ['grammar.empty_field']],
  ['state=working' + ':'.repeat(4088 - 13), ST, ['framing.too_long']],
  ['state=working' + ':'.repeat(4088 - 13), BEL, ['grammar.empty_field']],
  ['state=working' + ':'.repeat(4089 - 13), BEL, ['framing.too_long']],
  ['?', BEL, []],
  ['?', ST, []],
  ['??', ST, ['query.malformed']],
  [' ? ', ST, ['query.malformed']],
  ['?:x=1', ST, ['query.malformed']],
  ['state=working', `${ESC}[0m`, ['framing.esc_terminator']],
];

describe('OSC7501.md §13, as a program sends it', () => {
  test.each(ROWS)('%j %j', (body, terminator, expected) => {
    const stream = [osc('state=working'), `${ESC}]7501;${body}${terminator}`];
    const report = checkOutput(stream, { exited: false });
    expect(report.findings.map((f) => f.rule).sort()).toEqual(expected);
    for (const finding of report.findings) expect(finding.sequence).toBe(1);
    // The checker's count and the parser's reading agree on every row.
    const fits = body.length <= (terminator === BEL ? 4088 : 4087);
    const parsed = parse(body, terminator === BEL ? 'bel' : 'st');
    expect(report.counts.discarded).toBe(!fits || parsed.type === 'discarded' ? 1 : 0);
    const violations = report.findings.filter((f) => f.severity === 'violation').map((f) => f.rule);
    if (report.counts.discarded === 1) expect(violations.length).toBeGreaterThan(0);
  });

  test.each([`${ESC}]75010;state=idle${ST}`, `${ESC}]7501${ST}`])('%j is not OSC 7501: silent', (sequence) => {
    expect(checkOutput([sequence]).verdict).toBe('silent');
  });
});

const claude = (command: string) => [
  `${ESC}]7501;?${BEL}${ESC}[c`,
  `${ESC}[?25l${ESC}]7501;?${BEL}${ESC}[c`,
  `\x1b[2J> ${osc('state=idle:app=claude-code')}`,
  `${osc('state=working:app=claude-code')}Thinking…\r\n`,
  `Run ${command}?\r\n 1. Yes\r\n 2. No\r\n${osc(`state=blocked:app=claude-code:kind=permission:msg=${b64(`approve Bash: ${command}`)}`)}`,
  `${osc('state=working:app=claude-code')}file.txt\r\n`,
  `${osc('state=done:app=claude-code')}> `,
];
const codex = [
  osc('state=idle:app=codex'),
  osc('state=working:app=codex'),
  osc('state=blocked:app=codex:kind=permission'),
  osc('state=working:app=codex'),
  osc('state=done:app=codex'),
  osc('state=working:app=codex'),
  osc('state=blocked:app=codex:kind=question'),
  osc('state=idle:app=codex'),
  osc('state=working:app=codex'),
  osc('state=error:app=codex'),
  `bye\r\n${osc('state=clear')}`,
];

describe('the agents that declare OSC 7501 today (REFERENCE.md)', () => {
  test('Claude Code: queries with DA1 at start, then ST reports after the reply → conformant', () => {
    const report = checkOutput(claude('ls'));
    expect(report).toEqual({ verdict: 'conformant', counts: { sequences: 7, reports: 5, clears: 0, queries: 2, discarded: 0 }, findings: [] });
  });

  test('Claude Code on a terminal that never answers: it stays silent → conformant', () => {
    expect(checkOutput(claude('ls').slice(0, 2), { answers: false }).verdict).toBe('conformant');
  });

  test('a program that reports without waiting for the reply, or reports after none came', () => {
    const [first, ...rest] = claude('ls');
    expect(rulesOf([first + rest.join('')])).toEqual(Array(5).fill('order.before_reply'));
    expect(rulesOf(claude('ls'), { answers: false })).toEqual(Array(5).fill('order.reported_unanswered'));
  });

  test('Codex: no query, reports unconditionally, clears at exit → conformant, whether or not the terminal answers', () => {
    expect(checkOutput(codex)).toEqual({ verdict: 'conformant', counts: { sequences: 11, reports: 10, clears: 1, queries: 0, discarded: 0 }, findings: [] });
    expect(checkOutput(codex, { answers: false }).verdict).toBe('conformant');
  });

  test('Codex killed mid-turn, before its clear: warned, not failed', () => {
    const report = checkOutput(codex.slice(0, 3));
    expect(report.verdict).toBe('conformant_with_warnings');
    expect(report.findings.map((f) => f.rule)).toEqual(['exit.left_in_turn']);
  });

  test("the library's own encoder writes Claude Code's shape conformantly", () => {
    const stream = [
      encodeQuery(),
      encode({ state: 'idle', app: 'claude-code' }),
      encode({ state: 'working', app: 'claude-code', title: 'Plan' }),
      encode({ state: 'blocked', kind: 'permission', app: 'claude-code', msg: 'approve Bash: rm -rf build' }),
      encode({ state: 'done', app: 'claude-code', msg: 'Tests pass.' }),
    ];
    expect(checkOutput(stream).verdict).toBe('conformant');
  });
});
