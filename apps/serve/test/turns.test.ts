import { connectHost } from '@paneflow/instance';
import { TurnRecord, validate } from '@paneflow/protocol';
import { holdingGit, scaled, turnThatEdits, until } from '@paneflow/testing';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { killIfAlive, serveCli, startInstance, waitUntilGone, type Frame, type Instance } from './helpers';

let pf: Instance;
beforeAll(async () => {
  pf = await startInstance({ scripting: true, orchestration: true });
});
afterAll(() => pf.cleanup());

const git = (repo: string, ...args: string[]) => execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8', env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null' } });

/**
 * A repository the way a person leaves it mid-work: commits, a staged change, an unstaged one, a
 * stash entry, an untracked file and an ignored one.
 */
function userRepo(name: string): string {
  const repo = join(pf.dir, name);
  mkdirSync(repo);
  git(repo, 'init', '-q', '-b', 'main');
  git(repo, 'config', 'user.email', 'me@example.com');
  git(repo, 'config', 'user.name', 'Me');
  writeFileSync(join(repo, '.gitignore'), 'secret.env\n');
  writeFileSync(join(repo, 'old.txt'), 'old\n');
  writeFileSync(join(repo, 'keep.txt'), 'one\n');
  git(repo, 'add', '.');
  git(repo, 'commit', '-q', '-m', 'first');
  writeFileSync(join(repo, 'keep.txt'), 'stashed\n');
  git(repo, 'stash', '-q');
  writeFileSync(join(repo, 'keep.txt'), 'staged\n');
  git(repo, 'add', 'keep.txt');
  writeFileSync(join(repo, 'keep.txt'), 'staged\nand more\n');
  writeFileSync(join(repo, 'notes.md'), 'mine\n');
  writeFileSync(join(repo, 'secret.env'), 'TOKEN=1\n');
  return repo;
}

/** Everything of the user's repository Paneflow must never change. */
function userState(repo: string) {
  const index = join(repo, '.git/index');
  return {
    index: readFileSync(index).toString('base64'),
    indexMtime: statSync(index).mtimeMs,
    head: git(repo, 'rev-parse', 'HEAD'),
    symbolic: readFileSync(join(repo, '.git/HEAD'), 'utf8'),
    refs: git(repo, 'for-each-ref', '--format=%(refname) %(objectname)').split('\n').filter((line) => line && !line.startsWith('refs/paneflow/')),
    stash: git(repo, 'stash', 'list'),
    staged: git(repo, 'diff', '--cached'),
    files: readdirSync(repo)
      .filter((f) => f !== '.git' && !['a.txt', 'img.bin', 'notes.md', 'old.txt', 'later.txt'].includes(f))
      .map((f) => [f, readFileSync(join(repo, f), 'utf8')]),
  };
}

async function agentIn(cwd: string, name: string, command = 'claude') {
  const events = await pf.subscribe();
  const up = await pf.call('workspace.up', { name, layout: 'even_h', panes: [{ name, cwd, command, focus: true, env: {} }] });
  const surface = up.surfaces[0].surface_id;
  await events.next((f) => f.type === 'status_changed' && f.surface_id === surface && f.reason === 'declared');
  return { events, surface, session: up.surfaces[0].session };
}

const turnEnded = (surface: number) => (f: Frame) => f.type === 'turn_ended' && f.surface_id === surface;
const waitingAt = (surface: number) => (f: Frame) => f.type === 'status_changed' && f.surface_id === surface && f.state === 'waiting_for_input';

test('a turn behind a permission question: its prompt, the question answered by `answer`, its messages, and git snapshots of what it changed, with the repository untouched', async () => {
  const repo = userRepo('repo');
  const before = userState(repo);
  const { events, surface, session } = await agentIn(repo, 'editor');
  const prompt = ['permission to edit', '@write a.txt hello from the agent', '@bytes img.bin', '@delete old.txt'].join('\n');
  await pf.call('surface.send_text', { surface_id: surface, text: prompt, submit: true });
  const started = await events.next((f) => f.type === 'turn_started' && f.surface_id === surface);
  expect(validate(TurnRecord, started.turn)).toBeNull();
  expect(started.turn).toMatchObject({ turn: 1, session, surface_id: surface, pane_name: 'editor', runtime_id: 'claude-code', ended: null, prompt: { text: prompt, source: 'send' } });
  const waiting = await events.next(waitingAt(surface));
  // Answered once the start snapshot is taken: the edits come after it on any machine.
  await until(async () => (await pf.call('turn.list', { session })).turns.find((t) => t.change?.start_commit), 'the start snapshot');
  await pf.call('surface.answer', { surface_id: surface, answer: 'yes', state_seq: waiting.state_seq as number });
  const ended = (await events.next(turnEnded(surface))).turn as TurnRecord;

  expect(validate(TurnRecord, ended)).toBeNull();
  expect(ended).toMatchObject({
    turn: 1,
    ended: 'finished',
    prompt: { text: prompt, source: 'send' },
    questions: [{ kind: 'permission', message: 'approve Bash: permission to edit', by: 'answer', answer: 'yes', answered_at_ms: expect.any(Number) }],
    messages: [{ text: 'editing 3 file(s)', at_ms: expect.any(Number) }],
    // The fixture's transcript, as Claude Code's: one answer of FIXTURE_USAGE, its text's length out, priced by runtimes/prices.toml.
    tokens: { model: 'claude-opus-5-5', input: 12, cache_creation: 100, cache_read: 2000, output: 'done: permission to edit'.length, price_sources: [expect.stringMatching(/^https:\/\//)] },
  });
  expect(ended.tokens!.cost_usd).toBeCloseTo((12 * 4 + 100 * 5 + 2000 * 0.2 + 24 * 20) / 1e6, 9);
  expect(ended.working_ms + ended.waiting_ms).toBe(ended.ended_at_ms! - ended.started_at_ms);
  expect(ended.waiting_ms).toBeGreaterThan(0);
  // What changed: the agent's three edits, not the user's own work already there at the start, nor the ignored file.
  expect(ended.change).toMatchObject({ repo, ref: `refs/paneflow/turns/${session}/1`, files_changed: 3, added: 2, removed: 1, binary: 1, insertions: 1, deletions: 1, skipped: [], error: null });
  expect(ended.change!.files.map((f) => [f.path, f.status, f.binary]).sort()).toEqual([
    ['a.txt', 'added', false],
    ['img.bin', 'added', true],
    ['old.txt', 'deleted', false],
  ]);
  // The ref is the end snapshot, whose parent is the start snapshot; the start holds the user's untracked work, not what is ignored.
  expect(git(repo, 'rev-parse', ended.change!.ref).trim()).toBe(ended.change!.end_commit);
  expect(git(repo, 'rev-parse', `${ended.change!.end_commit}^`).trim()).toBe(ended.change!.start_commit);
  const startFiles = git(repo, 'ls-tree', '-r', '--name-only', ended.change!.start_commit!).split('\n').filter(Boolean);
  expect(startFiles.sort()).toEqual(['.gitignore', 'keep.txt', 'notes.md', 'old.txt']);
  expect(git(repo, 'show', `${ended.change!.start_commit}:keep.txt`)).toBe('staged\nand more\n');

  const diff = await pf.call('turn.diff', { surface_id: surface });
  expect(diff).toMatchObject({ against: 'end', truncated: false, turn: { turn: 1 } });
  expect(diff.diff).toContain('+hello from the agent');
  expect(diff.diff).toMatch(/^Binary files \/dev\/null and b\/img.bin differ$/m);
  expect(diff.diff).toContain('-old');
  const stat = await pf.call('turn.diff', { surface_id: surface, turn: 1, stat: true });
  expect(stat.diff).toMatch(/3 files changed, 1 insertion\(\+\), 1 deletion\(-\)/);

  expect(userState(repo)).toEqual(before);
  const { turns } = await pf.call('turn.list', { surface_id: surface });
  expect(turns).toEqual([ended]);
}, scaled(60_000));

test('a question answered by a person at a face says which face and what was typed; a declined permission ends the turn idle', async () => {
  const repo = userRepo('faces');
  const { events, surface, session } = await agentIn(repo, 'asker');
  await pf.call('surface.send_text', { surface_id: surface, text: 'a question for you', submit: true });
  await events.next(waitingAt(surface));
  // attach's own connection to the host, typing as its person does.
  const { connection } = await connectHost(pf.endpoints, 'attach');
  try {
    for (const key of ['b', 'l', 'u', 'e', '\r']) await connection.request('session.input', { session, text: key, origin: 'user' });
  } finally {
    connection.destroy();
  }
  const first = (await events.next(turnEnded(surface))).turn as TurnRecord;
  expect(first).toMatchObject({ turn: 1, ended: 'finished', questions: [{ kind: 'question', by: 'attach', answer: 'blue\r' }], change: { files_changed: 0 } });

  const mark = events.mark;
  await pf.call('surface.send_text', { surface_id: surface, text: 'permission please', submit: true });
  await events.next(waitingAt(surface), mark);
  await pf.call('surface.send_keystroke', { surface_id: surface, keystroke: 'escape', force: true });
  const second = (await events.next(turnEnded(surface), mark)).turn as TurnRecord;
  expect(second).toMatchObject({ turn: 2, ended: 'idle', questions: [{ kind: 'permission', by: 'key', answer: 'escape' }] });
}, scaled(60_000));

test('a pane outside git gets records without a change, and its diff is refused; an agent that declares nothing has no turns', async () => {
  const plain = join(pf.dir, 'plain');
  mkdirSync(plain);
  const { events, surface } = await agentIn(plain, 'nogit');
  await pf.call('surface.send_text', { surface_id: surface, text: 'just think', submit: true });
  expect(((await events.next(turnEnded(surface))).turn as TurnRecord).change).toBeNull();
  await expect(pf.call('turn.diff', { surface_id: surface })).rejects.toMatchObject({ code: -32030, data: { reason: 'no_change' } });

  const silentUp = await pf.call('workspace.up', { name: 'silent', layout: 'even_h', panes: [{ name: 'silent', cwd: plain, command: 'claude --no-query', focus: true, env: {} }] });
  const silent = silentUp.surfaces[0].surface_id;
  await until(async () => (await pf.call('surface.status', { surface_id: silent })).reason === 'no_signal', 'the silent agent is no_signal');
  await pf.call('surface.send_text', { surface_id: silent, text: 'work anyway', submit: true });
  await until(async () => /done: work anyway/.test((await pf.call('surface.read', { surface_id: silent, fenced: false })).text), 'the silent agent did its turn');
  expect((await pf.call('turn.list', { surface_id: silent })).turns).toEqual([]);
  await expect(pf.call('turn.diff', { surface_id: silent })).rejects.toMatchObject({ code: -32020 });
}, scaled(60_000));

/** Kills serve (kill -9) and starts it again, as a crash and the next `paneflow` call would. */
async function restartServe() {
  killIfAlive(pf.servePid);
  await waitUntilGone(pf.servePid);
  const restarted = serveCli(pf.env, 'start');
  expect(restarted.code).toBe(0);
  pf.servePid = JSON.parse(restarted.stdout).pid;
}

test('kill -9 of serve mid-turn: the new serve goes on with the same turn, taking the start snapshot the old one had not; kill -9 of the host mid-turn: interrupted, its start snapshot kept and diffed against the working tree', async () => {
  const repo = userRepo('crash');
  const { events, surface, session } = await agentIn(repo, 'crasher');
  // First on serve's PATH: serve's start snapshot stays under way, not yet taken, while held.
  const git = holdingGit(join(pf.dir, 'bin', 'git'), 'write-tree');
  git.hold();
  try {
    await pf.call('surface.send_text', { surface_id: surface, text: 'permission first\n@write later.txt written after the answer', submit: true });
    const waiting = await events.next(waitingAt(surface));
    await until(() => git.began(), 'the start tree under way, held');
    // Serve dies while git writes the turn's start tree: its record on disk has no start snapshot.
    const held = (await pf.call('turn.list', { session })).turns;
    expect(held.map((t) => [t.turn, t.ended, t.change?.start_commit ?? null])).toEqual([[1, null, null]]);
    await restartServe();
    git.release();
    const after = await pf.subscribe();
    const open = await until(async () => (await pf.call('turn.list', { session })).turns.find((t) => t.turn === 1 && t.change?.start_commit), 'turn 1 has a start snapshot from the new serve');
    expect(open.ended).toBeNull();
    await pf.call('surface.answer', { surface_id: surface, answer: 'yes', state_seq: waiting.state_seq as number });
    const ended = (await after.next(turnEnded(surface))).turn as TurnRecord;
    expect(ended).toMatchObject({ turn: 1, ended: 'finished', questions: [{ by: 'answer' }], change: { start_commit: open.change!.start_commit, files_changed: 1, added: 1 } });
    expect((await pf.call('turn.list', { session })).turns.map((t) => [t.turn, t.ended])).toEqual([[1, 'finished']]);
  } finally {
    git.release();
    git.remove();
  }

  // A serve killed after the start snapshot keeps it; then the host dies with the turn open.
  const again = await pf.subscribe();
  await pf.call('surface.send_text', { surface_id: surface, text: 'permission again', submit: true });
  await again.next(waitingAt(surface));
  const open = await until(async () => (await pf.call('turn.list', { session })).turns.find((t) => t.turn === 2 && t.change?.start_commit), 'turn 2 has its start snapshot');
  // Records are written off serve's event loop: the kill comes once this one is on disk.
  const file = join(pf.env.PANEFLOW_HOME!, 'serve/turns', session, '2.json');
  await until(() => (JSON.parse(readFileSync(file, 'utf8')) as TurnRecord).change?.start_commit === open.change!.start_commit || null, 'turn 2 on disk with its start snapshot');
  await restartServe();
  const after = await pf.subscribe();
  expect((await pf.call('turn.list', { session, since_ms: open.started_at_ms })).turns).toMatchObject([{ turn: 2, ended: null, change: { start_commit: open.change!.start_commit } }]);
  writeFileSync(join(repo, 'after-crash.txt'), 'made by hand while the agent waited\n');
  killIfAlive(pf.hostPid());
  const interrupted = (await after.next(turnEnded(surface))).turn as TurnRecord;
  expect(interrupted).toMatchObject({ turn: 2, ended: 'interrupted', change: { start_commit: open.change!.start_commit, end_commit: null } });
  const diff = await pf.call('turn.diff', { session, turn: 2 });
  expect(diff.against).toBe('worktree');
  expect(diff.diff).toContain('+made by hand while the agent waited');
}, scaled(90_000));

test('records on disk: a restarted serve lists them as they were, every file of the wrong shape is set aside (serve starts all the same), and prune removes records and refs', async () => {
  const repo = userRepo('prune');
  const { events, surface, session } = await agentIn(repo, 'pruner');
  for (const [n, text] of [['1', '@write one.txt 1'], ['2', '@write two.txt 2']]) {
    const mark = events.mark;
    await pf.call('surface.send_text', { surface_id: surface, text, submit: true });
    expect(((await events.next(turnEnded(surface), mark)).turn as TurnRecord).turn).toBe(Number(n));
  }
  const listed = (await pf.call('turn.list', { session })).turns;
  const ledger = join(pf.env.PANEFLOW_HOME!, 'serve/turns');
  const dir = join(ledger, session);
  // Not a record; not JSON; a directory; records whose ref is the user's branch or another session's (prune would delete it); a file where a session's directory goes; a bad look.
  writeFileSync(join(dir, '9.json'), JSON.stringify({ turn: 9, session }));
  writeFileSync(join(dir, '8.json'), '{"turn": 8, "sess');
  mkdirSync(join(dir, '7.json'));
  writeFileSync(join(dir, '6.json'), JSON.stringify({ ...listed[0], turn: 6, ended: 'finished', change: { ...listed[0].change, ref: 'refs/heads/main' } }));
  const otherRef = 'refs/paneflow/turns/00000000-0000-4000-8000-000000000001/5';
  writeFileSync(join(dir, '5.json'), JSON.stringify({ ...listed[0], turn: 5, ended: 'finished', change: { ...listed[0].change, ref: otherRef } }));
  const stray = '00000000-0000-4000-8000-000000000000';
  writeFileSync(join(ledger, stray), 'not a directory');
  writeFileSync(join(ledger, 'looked.json'), 'yesterday');

  await restartServe();
  expect((await pf.call('turn.list', { session })).turns).toEqual(listed);
  for (const name of ['9.json', '8.json', '7.json', '6.json', '5.json']) expect([name, readdirSync(dir).includes(`${name}.unreadable`)]).toEqual([name, true]);
  expect(readdirSync(ledger).filter((f) => f.endsWith('.unreadable')).sort()).toEqual([`${stray}.unreadable`, 'looked.json.unreadable']);
  expect(pf.serveLog()).toMatch(/9\.json is not a file of the turn ledger: /);
  expect(pf.serveLog()).toMatch(/6\.json is not a file of the turn ledger: 'change\/ref' must match pattern/);
  expect(pf.serveLog()).toContain(`5.json is not a file of the turn ledger: its ref is not its own: ${otherRef}; moved to `);
  expect((await pf.call('fleet.digest', {})).looked_at_ms).toBeNull();

  expect(git(repo, 'for-each-ref', '--format=%(refname)', `refs/paneflow/turns/${session}/`).split('\n').filter(Boolean)).toHaveLength(2);
  expect(await pf.call('turn.prune', { session })).toEqual({ records: 2, refs: 2 });
  expect((await pf.call('turn.list', { session })).turns).toEqual([]);
  expect(git(repo, 'for-each-ref', 'refs/paneflow/')).toBe('');
  expect(git(repo, 'rev-parse', '--verify', '-q', 'refs/heads/main')).not.toBe('');
}, scaled(60_000));

test('prune while a turn still settles (its end snapshot, its tokens) takes it too, for good; a pane closed mid-turn ends it exited', async () => {
  const repo = userRepo('settling');
  const { events, surface, session } = await agentIn(repo, 'settler');
  await pf.call('surface.send_text', { surface_id: surface, text: '@write s.txt settled', submit: true });
  // Done is declared; the record's end snapshot and tokens come a second later.
  await events.next((f) => f.type === 'status_changed' && f.surface_id === surface && f.state === 'finished');
  expect(await pf.call('turn.prune', { session })).toEqual({ records: 1, refs: 1 });
  // Its end was told (serve sends it before prune answers), and it does not come back.
  expect(((await events.next(turnEnded(surface))).turn as TurnRecord).turn).toBe(1);
  expect((await pf.call('turn.list', { session })).turns).toEqual([]);
  expect(git(repo, 'for-each-ref', 'refs/paneflow/')).toBe('');

  const mark = events.mark;
  await pf.call('surface.send_text', { surface_id: surface, text: 'permission to stop', submit: true });
  await events.next(waitingAt(surface), mark);
  await pf.call('surface.close', { surface_id: surface });
  const closed = (await events.next(turnEnded(surface), mark)).turn as TurnRecord;
  // Numbered on from the pruned one, as its ref was.
  expect(closed).toMatchObject({ session, turn: 2, ended: 'exited', questions: [{ kind: 'permission', answered_at_ms: expect.any(Number), by: null }] });
  expect((await pf.call('turn.list', { session })).turns.map((t) => [t.turn, t.ended])).toEqual([[2, 'exited']]);
}, scaled(60_000));

test('the digest says per agent what its turns did since the person last looked, and what it waits for', async () => {
  const repo = userRepo('digest');
  const { events, surface } = await agentIn(repo, 'digester');
  const { looked_at_ms } = await pf.call('fleet.looked', {});
  await turnThatEdits(pf.call, surface, 'permission to write\n@write d.txt one\n@write e.txt two');
  const mark = events.mark;
  await pf.call('surface.send_text', { surface_id: surface, text: 'permission to go on', submit: true });
  await events.next(waitingAt(surface), mark);
  const digest = await pf.call('fleet.digest', {});
  expect(digest.since_ms).toBe(looked_at_ms);
  expect(digest.agents.find((a) => a.surface_id === surface)).toMatchObject({
    pane_name: 'digester',
    turns: 2,
    finished: 1,
    files_changed: 2,
    insertions: 2,
    waiting: { kind: 'permission', message: 'approve Bash: permission to go on' },
    last_prompt: 'permission to go on',
  });
  // Since now, nothing ended: the running turn is still there, the finished one is not.
  const later = await pf.call('fleet.digest', { since_ms: Date.now() });
  expect(later.agents.find((a) => a.surface_id === surface)).toMatchObject({ turns: 1, finished: 0 });
}, scaled(60_000));
