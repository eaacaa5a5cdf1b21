// The turn ledger from the command line: `paneflow turns` lists what each agent did, `paneflow
// diff` shows git's diff of a turn (coloured and cleaned on a terminal, as git wrote it on a
// pipe), `paneflow digest` says what happened since the person last looked, and `turns prune`
// removes the records and their refs. A real instance, the fixture agent as `claude`, a real git repository.
import type { TurnRecord } from '@paneflow/protocol';
import { gitRepo, makeHome, scaled, turnThatEdits, until, type Git, type Home } from '@paneflow/testing';
import { join } from 'node:path';

let home: Home;
let repo: string;
let git: Git;
let surface: number;
const turns = (...args: string[]) => home.run(['turns', ...args, '--json']).json<{ turns: TurnRecord[] }>().turns;

beforeAll(async () => {
  home = makeHome({ PANEFLOW_IPC_ORCHESTRATION: '1', PANEFLOW_IPC_SCRIPTING: '1' });
  repo = join(home.dir, 'repo');
  git = gitRepo(repo);
  expect(home.run(['start']).code).toBe(0);
  surface = (await home.rpc('workspace.up', { name: 'ledger', layout: 'even_h', panes: [{ name: 'coder', cwd: repo, command: 'claude', focus: true, env: {} }] })).surfaces[0].surface_id;
  await until(() => home.run(['status', 'coder', '--json', '--scope', 'all']).json<{ reason: string }>().reason === 'declared', 'the agent declares');
  await turnThatEdits(home.rpc, surface, 'permission to edit\n@write src/app.js console.log("\\x1b[31mred\\x1b[0m")\n@append README more');
}, scaled(60_000));
afterAll(() => home?.cleanup());

test('turns lists each turn as a table and as JSON; --since and --limit narrow it', () => {
  const [first] = turns('coder', '--scope', 'all');
  expect(first).toMatchObject({ turn: 1, ended: 'finished', prompt: { source: 'send' }, change: { files_changed: 2, added: 1, insertions: 2 } });
  const table = home.run(['turns', 'coder', '--scope', 'all']);
  expect(table.code).toBe(0);
  expect(table.stdout).toMatch(/^ID\s+TURN\s+STARTED\s+TOOK\s+ENDED\s+CHANGE\s+TOKENS\s+PROMPT$/m);
  expect(table.stdout).toMatch(new RegExp(`^${surface}\\s+#1\\s+\\d\\d:\\d\\d\\s+\\S+\\s+finished\\s+2 files \\+2 -0\\s+.*in · .*out.*permission to edit`, 'm'));
  expect(turns('--since', '1s').length).toBeLessThanOrEqual(1);
  expect(home.run(['turns', '--since', 'yesterday']).code).toBe(2);
  expect(home.run(['turns', '--limit', '0']).code).toBe(2);
  expect(home.run(['turns', 'nosuchpane']).code).toBe(3);
});

test('diff prints git’s diff plain to a pipe, and coloured with every control shown as text to a terminal', () => {
  const plain = home.run(['diff', 'coder', '--scope', 'all']);
  expect(plain.code).toBe(0);
  expect(plain.stdout).toContain('+console.log("\x1b[31mred\x1b[0m")');
  expect(plain.stdout).toMatch(/^\+more$/m);
  const coloured = home.run(['diff', 'coder', '--scope', 'all'], { env: { NO_COLOR: '', FORCE_COLOR: '1' } });
  expect(coloured.stdout).toContain('\x1b[32m+console.log("^[[31mred^[[0m")\x1b[0m');
  expect(coloured.stdout).toContain('\x1b[36m@@');
  // eslint-disable-next-line no-control-regex -- paint's own SGR sequences
  expect(coloured.stdout.replace(/\x1b\[[0-9;]*m/g, '')).not.toContain('\x1b');
  const stat = home.run(['diff', 'coder', '--turn', '1', '--stat', '--scope', 'all']);
  expect(stat.stdout).toMatch(/2 files changed, 2 insertions\(\+\)/);
  expect(home.run(['diff', 'coder', '--turn', '7', '--scope', 'all']).code).toBe(3);
  expect(home.run(['diff', 'coder', '--turn', '1', '--last', '--scope', 'all']).code).toBe(2);
});

test('digest says what happened since the person last looked; prune removes the records and refs', async () => {
  await home.rpc('fleet.looked', {});
  expect(home.run(['digest']).stdout).toMatch(/nothing happened/);
  await turnThatEdits(home.rpc, surface, 'permission to delete\n@delete README');
  const digest = home.run(['digest']);
  expect(digest.stdout).toMatch(/\(when you last looked\)/);
  expect(digest.stdout).toMatch(new RegExp(`^${surface}\\s+coder\\s+claude-code\\s+1 turn, 1 finished · 1 file \\+0 -2`, 'm'));
  expect(home.run(['digest', '--since', '1d', '--json']).json<{ agents: Array<{ turns: number }> }>().agents[0].turns).toBe(2);

  expect(git('for-each-ref', 'refs/paneflow/').trim().split('\n')).toHaveLength(2);
  expect(home.run(['turns', 'prune']).json()).toEqual({ records: 2, refs: 2 });
  expect(turns()).toEqual([]);
  expect(git('for-each-ref', 'refs/paneflow/')).toBe('');
  expect(git('status', '--porcelain')).toBe(' D README\n?? src/\n');
});
