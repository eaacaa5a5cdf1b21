import type { DigestAgent, TurnRecord } from '@paneflow/protocol';
import { changeText, countText, diffFiles, diffLines, digestLine, durationText, endingText, fileLineText, promptLine, tokensText, turnLine } from '../src';

const record = (over: Partial<TurnRecord> = {}): TurnRecord => ({
  turn: 3,
  session: '6f1c2f3a-9b0e-4d7a-8c1e-2a3b4c5d6e7f',
  generation: 1,
  surface_id: 2,
  workspace_id: 'w',
  pane_name: 'api',
  runtime_id: 'claude-code',
  provider_session_id: null,
  started_at_ms: 1_000_000,
  ended_at_ms: 1_125_000,
  ended: 'finished',
  working_ms: 100_000,
  waiting_ms: 25_000,
  prompt: { text: '\n  fix the\tlogin\nand the rest', source: 'send' },
  questions: [],
  messages: [],
  change: {
    repo: '/r',
    ref: 'refs/paneflow/turns/x/3',
    start_commit: 'a',
    end_commit: 'b',
    start_at_ms: 1_000_050,
    end_at_ms: 1_125_010,
    files_changed: 3,
    added: 1,
    removed: 0,
    insertions: 12,
    deletions: 4,
    binary: 0,
    files: [],
    skipped: [],
    error: null,
  },
  tokens: { input: 1200, output: 1100, cache_read: 10_000, cache_creation: 0, model: 'm', cost_usd: 0.042, price_sources: [] },
  updated_at_ms: 1_125_000,
  ...over,
});

test('durations, counts and tokens in few characters; a cost only where the record has one', () => {
  expect([850, 42_000, 185_000, 7_800_000].map(durationText)).toEqual(['850ms', '42s', '3m 05s', '2h 10m']);
  expect([999, 1234, 12_345, 2_500_000].map(countText)).toEqual(['999', '1.2k', '12k', '2.5M']);
  expect(tokensText(record().tokens)).toBe('11k in · 1.1k out · $0.04');
  expect(tokensText({ ...record().tokens!, cost_usd: null })).toBe('11k in · 1.1k out');
  expect(tokensText({ ...record().tokens!, cost_usd: 0.0042 })).toBe('11k in · 1.1k out · $0.0042');
  expect(tokensText(null)).toBe('');
});

test('what a turn changed: files and lines, none, outside git, or why there is no end', () => {
  const change = record().change!;
  expect(changeText(record())).toBe('3 files +12 -4');
  expect(changeText(record({ change: { ...change, files_changed: 1 } }))).toBe('1 file +12 -4');
  expect(changeText(record({ change: { ...change, files_changed: 0 } }))).toBe('no change');
  expect(changeText(record({ change: null }))).toBe('no git');
  expect(changeText(record({ change: { ...change, error: 'git died' } }))).toBe('snapshot failed');
  expect(changeText(record({ ended: null, change: { ...change, end_commit: null } }))).toBe('running');
  expect(changeText(record({ ended: 'interrupted', change: { ...change, end_commit: null } }))).toBe('interrupted');
});

test('a turn on one line: the prompt’s first line, cleaned; a running turn says whether it waits', () => {
  expect(turnLine(record(), 0)).toBe('#3  2m 05s  finished  3 files +12 -4  11k in · 1.1k out · $0.04  fix the login');
  expect(promptLine('go \x1b[31mred\u202e now', 60)).toBe('go ^[[31mred now');
  expect(promptLine('x'.repeat(80), 10)).toBe(`${'x'.repeat(9)}…`);
  const asked = { kind: 'permission' as const, message: 'ok?', asked_at_ms: 1, answered_at_ms: null, by: null, answer: null };
  expect(endingText(record({ ended: null, questions: [asked] }))).toBe('waiting');
  expect(endingText(record({ ended: null, questions: [{ ...asked, answered_at_ms: 2, by: 'answer' }] }))).toBe('running');
  expect(turnLine(record({ ended: null, ended_at_ms: null, tokens: null, prompt: null }), 1_010_000)).toBe('#3  10s  running  3 files +12 -4');
});

test('the digest’s line per agent', () => {
  const agent: DigestAgent = {
    surface_id: 2,
    session: record().session,
    pane_name: 'api',
    runtime_id: 'claude-code',
    turns: 4,
    finished: 3,
    errors: ['rate \x07limited'],
    interrupted: 1,
    files_changed: 5,
    insertions: 40,
    deletions: 12,
    tokens: null,
    waiting: { kind: 'permission', message: 'approve Bash: rm', since_ms: 0 },
    last_prompt: null,
  };
  expect(digestLine(agent)).toBe('4 turns, 3 finished · 1 error: rate ^Glimited · 1 interrupted · 5 files +40 -12 · waits: approve Bash: rm');
  expect(digestLine({ ...agent, turns: 1, finished: 0, errors: [], interrupted: 0, files_changed: 0, waiting: null })).toBe('1 turn');
});

// As `git diff-tree -r -M --patch` writes it: an edit whose removed and added lines look like file headers, a rename, a binary file, a path with a space.
const DIFF = [
  'diff --git a/notes.md b/notes.md',
  'index 1111111..2222222 100644',
  '--- a/notes.md',
  '+++ b/notes.md',
  '@@ -1,3 +1,3 @@',
  ' title',
  '--- a rule',
  '+++ a plus',
  '\\ No newline at end of file',
  'diff --git a/old name.txt b/new name.txt',
  'similarity index 90%',
  'rename from old name.txt',
  'rename to new name.txt',
  'diff --git a/img.bin b/img.bin',
  'new file mode 100644',
  'index 0000000..3333333',
  'Binary files /dev/null and b/img.bin differ',
  'diff --git a/a b/c b/a b/c',
  'deleted file mode 100644',
  '--- a/a b/c',
  '+++ /dev/null',
  '@@ -1 +0,0 @@',
  '-gone',
  '',
].join('\n');

test('a unified diff line by line: headers only before a hunk, so `--- ` and `+++ ` inside one are lines removed and added', () => {
  const kinds = diffLines(DIFF).map((l) => l.kind);
  expect(kinds.slice(0, 9)).toEqual(['file', 'meta', 'meta', 'meta', 'hunk', 'context', 'remove', 'add', 'context']);
  expect(kinds.slice(-5)).toEqual(['meta', 'meta', 'meta', 'hunk', 'remove']);
  expect(diffLines('')).toEqual([]);
  expect(diffLines('x')).toEqual([{ kind: 'meta', text: 'x' }]);
});

test('a unified diff as files then hunks: paths with spaces, renames, binary files', () => {
  const files = diffFiles(DIFF);
  expect(files.map((f) => [f.path, f.binary, f.hunks.length])).toEqual([
    ['notes.md', false, 1],
    ['new name.txt', false, 0],
    ['img.bin', true, 0],
    ['a b/c', false, 1],
  ]);
  expect(files[0].hunks[0]).toEqual({
    header: '@@ -1,3 +1,3 @@',
    lines: [
      { kind: 'context', text: ' title' },
      { kind: 'remove', text: '--- a rule' },
      { kind: 'add', text: '+++ a plus' },
      { kind: 'context', text: '\\ No newline at end of file' },
    ],
  });
  expect(files[1].header.map((l) => l.text)).toEqual(['similarity index 90%', 'rename from old name.txt', 'rename to new name.txt']);
});

test('a file’s line: tabs to the next stop of 8, as git’s pager shows them; controls shown as text', () => {
  expect(fileLineText('+\tif (x)\t{')).toBe('+       if (x)  {');
  expect(fileLineText('-12345678\tx')).toBe('-12345678       x');
  expect(fileLineText(' red\x1b[31m\u202e!')).toBe(' red^[[31m!');
});
