// `paneflow osc check` as an agent's author runs it: real programs in a real PTY under the CLI's
// receiver, judged against OSC7501.md. Each broken program breaks one rule and must be named by it.
import { readProcStat } from '@paneflow/proc';
import { CLI, ROOT, until } from '@paneflow/testing';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

interface Finding {
  severity: 'violation' | 'warning';
  rule: string;
  section: string;
  sequence: number | null;
}
interface Result {
  verdict: string;
  counts: Record<string, number>;
  findings: Finding[];
  ended: { by: string; why?: string; code?: number };
  unmet: { line: number; state: string; current: string | null } | null;
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'pf-osc-check-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const AGENT = join(ROOT, 'fixtures/agent.mjs');
const ESC = '\x1b';
const ST = `${ESC}\\`;
const report = (body: string, end = ST) => `${ESC}]7501;${body}${end}`;
const QUERY = `${ESC}]7501;?\x07`;

function check(args: string[], command: string[]) {
  const result = spawnSync(process.execPath, [CLI, 'osc', 'check', '--json', ...args, '--', ...command], { encoding: 'utf8', timeout: 120_000, cwd: dir });
  return { code: result.status, stderr: result.stderr, result: result.stdout ? (JSON.parse(result.stdout) as Result) : null };
}

/** A program that writes each piece with a pause between them (so each is a read of its own), then exits. */
function writes(...pieces: string[]): string[] {
  const script = `const pieces = ${JSON.stringify(pieces)};
let i = 0;
const next = () => { if (i === pieces.length) return setTimeout(() => process.exit(0), 50); process.stdout.write(pieces[i++], () => setTimeout(next, 150)); };
next();`;
  return [process.execPath, '-e', script];
}

function script(name: string, lines: string[]): string {
  const path = join(dir, name);
  writeFileSync(path, lines.join('\n') + '\n');
  return path;
}

test('the fixture agent through a whole turn, answered and asked: conformant', () => {
  const turn = script('turn.txt', ['# a turn with a permission question, answered yes', 'wait-for idle', 'send deploy it permission', 'wait-for blocked', 'type 1', 'wait-for done']);
  const { code, result, stderr } = check(['--input', turn], [process.execPath, AGENT]);
  expect(stderr).toBe('');
  expect(result).toMatchObject({ verdict: 'conformant', findings: [], unmet: null, ended: { by: 'hang-up', why: 'script done' } });
  // query, idle, working, blocked, working (allowed), done
  expect(result!.counts).toEqual({ sequences: 6, reports: 5, clears: 0, queries: 1, discarded: 0 });
  expect(code).toBe(0);
});

test("--no-answer: the fixture agent's fallback is silence after its query, which is conformant; a script waiting for a report says so", () => {
  const silent = check(['--no-answer', '--timeout', '3000'], [process.execPath, AGENT]);
  expect(silent.result).toMatchObject({ verdict: 'conformant', counts: { queries: 1, reports: 0 }, ended: { by: 'hang-up', why: 'timeout' } });
  expect(silent.code).toBe(0);
  const waiting = check(['--no-answer', '--timeout', '3000', '--input', script('idle.txt', ['wait-for idle'])], [process.execPath, AGENT]);
  expect(waiting.result!.unmet).toEqual({ line: 1, state: 'idle', current: null });
  expect(waiting.code).toBe(1);
});

test("Codex's shape (no query, reports regardless, clear at exit): conformant", () => {
  const codex = writes(report('state=idle:app=codex'), report('state=working:app=codex'), report('state=blocked:app=codex:kind=permission'), report('state=working:app=codex'), report('state=done:app=codex'), report('state=clear'));
  expect(check([], codex)).toMatchObject({ code: 0, result: { verdict: 'conformant', findings: [] } });
});

test('a program that never declares: silent, not an agent; exit 1', () => {
  expect(check([], ['echo', 'hello'])).toMatchObject({ code: 1, result: { verdict: 'silent', counts: { sequences: 0 }, ended: { by: 'itself', code: 0 } } });
});

// One broken program per rule a program can break through a real terminal, each inside a turn so
// that nothing else is wrong with it.
const BROKEN: Array<[rule: string, section: string, command: string[], args?: string[]]> = [
  ['framing.too_long', '§2.4', writes(report(`state=working:msg=${'QUFB'.repeat(1100)}`))],
  ['framing.aborted', '§2.6', writes(`${ESC}]7501;state=working\x18`)],
  ['framing.unterminated', '§2.1', writes(`${ESC}]7501;state=working`)],
  ['query.malformed', '§7.1', writes(`${ESC}]7501;??\x07`)],
  ['grammar.key_too_long', '§3.5', writes(report(`state=idle:${'k'.repeat(17)}=1`))],
  ['state.missing', '§4', writes(report('progress=50'))],
  ['state.unknown', '§4', writes(report('state=sleeping'))],
  ['id.invalid', '§4', writes(report('state=idle:id=a//b'))],
  ['app.too_long', '§6.3', writes(report(`state=idle:app=${'a'.repeat(33)}`))],
  ['text.base64', '§5.1', writes(report('state=idle:msg=QQ='))],
  ['text.control', '§5.2', writes(report('state=idle:msg=YQpi'))],
  ['text.utf8', '§5.2', writes(report('state=idle:msg=/w=='))],
  ['text.decoded_too_long', '§5.3', writes(report(`state=idle:msg=${'QUFB'.repeat(683)}`))],
  ['grammar.value_alphabet', '§3.7', writes(report('state=idle:msg=has space'))],
  ['kind.unknown', '§4', writes(report('state=working'), report('state=blocked:kind=dance'), report('state=done'))],
  ['progress.invalid', '§4', writes(report('state=working:progress=101'), report('state=done'))],
  ['app.invalid', '§4', writes(report('state=idle:app=a/b'))],
  ['order.before_reply', '§7.3', writes(QUERY + report('state=idle'))],
  ['order.reported_unanswered', '§7', writes(QUERY, report('state=idle')), ['--no-answer']],
];

test.each(BROKEN)('a program that breaks %s is not conformant, named by %s', (rule, section, command, args = []) => {
  const { code, result } = check(args, command);
  expect(result!.verdict).toBe('not_conformant');
  expect(result!.findings.filter((f) => f.severity === 'violation').map((f) => [f.rule, f.section])).toEqual([[rule, section]]);
  expect(code).toBe(1);
});

const WARNED: Array<[rule: string, section: string, command: string[]]> = [
  ['exit.left_in_turn', '§10', writes(report('state=working'))],
  ['grammar.unknown_key', '§3.6', writes(report('state=idle:future=yes'))],
  ['kind.ignored', '§4', writes(report('state=idle:kind=auth'))],
  ['order.done_outside_turn', '§8', writes(report('state=idle'), report('state=done'))],
  ['framing.esc_terminator', '§2.7', writes(`${report('state=idle', '')}${ESC}[0m`)],
];

test.each(WARNED)('a program that breaks only %s is conformant with a warning named by %s; exit 0', (rule, section, command) => {
  const { code, result } = check([], command);
  expect(result).toMatchObject({ verdict: 'conformant_with_warnings', findings: [{ severity: 'warning', rule, section }] });
  expect(code).toBe(0);
});

test('what a person reads: each finding with its section and the bytes, cleaned, then the verdict', () => {
  const result = spawnSync(process.execPath, [CLI, 'osc', 'check', '--', ...writes(report('state=idle:msg=has space:x=\x1b[31m'))], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  expect(result.stdout).toContain('violation  §3.7   #1      msg value "has space" has a byte outside');
  expect(result.stdout).toMatch(/\nnot conformant \(1 violation\(s\), \d+ warning\(s\)\)\n$/);
  // The program's own bytes come back escaped: no ESC reaches the terminal.
  expect(result.stdout).not.toContain('\x1b');
  expect(result.status).toBe(1);
});

test('bad input: no command, a script line that is not a step, an unknown key, a missing program; each said plainly, nothing run', () => {
  const run = (args: string[]) => spawnSync(process.execPath, [CLI, 'osc', 'check', ...args], { encoding: 'utf8' });
  expect(run([])).toMatchObject({ status: 2, stderr: expect.stringContaining("'osc check' needs <command>") });
  const marker = join(dir, 'ran');
  const touch = ['sh', '-c', `touch ${marker}`];
  expect(run(['--input', script('bad.txt', ['wait-for idle', 'dance now']), '--', ...touch])).toMatchObject({ status: 2, stderr: expect.stringContaining("bad.txt:2: unknown step 'dance'") });
  expect(run(['--input', script('key.txt', ['key hyperspace']), '--', ...touch])).toMatchObject({ status: 2, stderr: expect.stringContaining("key.txt:1: unknown key 'hyperspace'") });
  expect(run(['--input', script('state.txt', ['wait-for sleeping']), '--', ...touch])).toMatchObject({ status: 2, stderr: expect.stringContaining('state.txt:1: wait-for needs one of idle') });
  expect(run(['--input', script('tab.txt', ['wait\tsoon']), '--', ...touch])).toMatchObject({ status: 2, stderr: expect.stringContaining("tab.txt:1: wait needs milliseconds, not 'soon'") });
  expect(run(['--input', join(dir, 'missing.txt'), '--', ...touch])).toMatchObject({ status: 2, stderr: expect.stringContaining('cannot read --input') });
  expect(spawnSync('test', ['-e', marker]).status).toBe(1);
  expect(run(['--', join(dir, 'no-such-program')])).toMatchObject({ status: 1, stderr: `paneflow: ${join(dir, 'no-such-program')}: command not found\n` });
});

test('a hang-up reaches the whole process group: a program behind a launcher that ignores SIGHUP does not outlive the check', async () => {
  const pidFile = join(dir, 'stubborn.pid');
  const stubborn = `require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); process.on('SIGHUP', () => {}); setInterval(() => {}, 1000);`;
  const launcher = ['sh', '-c', `${process.execPath} -e "${stubborn.replaceAll('"', '\\"')}"; true`];
  expect(check(['--timeout', '5000'], launcher).result).toMatchObject({ verdict: 'silent', ended: { by: 'hang-up', why: 'timeout' } });
  const pid = Number(readFileSync(pidFile, 'utf8'));
  expect(pid).toBeGreaterThan(0);
  // The group's SIGKILL went out before the check returned; the kernel ends the child soon after.
  await until(() => {
    const state = readProcStat(pid)?.state;
    return state === undefined || state === 'Z';
  }, 'the stubborn child ended by the check');
});

test('a program that writes a lot and exits at once: its last report is judged (no false "left in a turn" or "unterminated")', () => {
  const flood = `process.stdout.write(${JSON.stringify(report('state=working'))} + 'x'.repeat(200000) + ${JSON.stringify(report('state=done'))}); process.exit(0);`;
  expect(check([], [process.execPath, '-e', flood])).toMatchObject({ code: 0, result: { verdict: 'conformant', counts: { reports: 2 } } });
  const reports = `let out = ${JSON.stringify(report('state=working'))}; for (let i = 0; i < 20000; i++) out += ${JSON.stringify(report('state=working:progress=50'))}; process.stdout.write(out + ${JSON.stringify(report('state=done'))}); process.exit(0);`;
  expect(check([], [process.execPath, '-e', reports])).toMatchObject({ code: 0, result: { verdict: 'conformant', counts: { reports: 20002, discarded: 0 } } });
});
