// The turn ledger in `paneflow attach` (prefix t) as a person meets it: in a real terminal (tmux),
// typed into with send-keys, read back with capture-pane, against a real instance whose fixture
// agent edits files of a real git repository in its turns.
import type { TurnRecord } from '@paneflow/protocol';
import { CLI, gitRepo, makeHome, scaled, Tmux, turnThatEdits, until, type Home, type TmuxWindow } from '@paneflow/testing';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

let home: Home;
let tmux: Tmux;
let ids: Record<string, number>;

beforeAll(async () => {
  home = makeHome({ PANEFLOW_IPC_SCRIPTING: '1', PANEFLOW_IPC_ORCHESTRATION: '1' });
  const repo = join(home.dir, 'repo');
  gitRepo(repo);
  expect(home.run(['start']).code).toBe(0);
  tmux = new Tmux();
  // An agent in the repository, one outside any git work tree, and a shell.
  const panes = [
    { name: 'coder', cwd: repo, command: 'claude', focus: true },
    { name: 'loose', cwd: home.dir, command: 'claude', focus: false },
    { name: 'sh', cwd: home.dir, command: 'PS1="ready$ " exec bash --norc --noprofile -i', focus: false },
  ];
  const up = await home.rpc('workspace.up', { name: 'ledger', layout: 'even_h', panes: panes.map((p) => ({ ...p, env: {} })) });
  ids = Object.fromEntries(up.surfaces.map((s) => [s.name, s.surface_id]));
  for (const name of ['coder', 'loose']) await until(async () => (await home.rpc('surface.status', { surface_id: ids[name] })).reason === 'declared' || null, `${name} declares`);
}, scaled(60_000));
afterAll(() => {
  tmux?.kill();
  home?.cleanup();
});

const text = (lines: string[]) => lines.join('\n');

/** `paneflow attach` in a window whose output bytes are also kept: what the outer terminal was told. */
function attach(cols = 120, rows = 32) {
  const window = tmux.window([process.execPath, CLI, 'attach', 'ledger'], { env: home.env, dir: home.dir, cols, rows });
  const file = join(home.dir, `written-${window.target.replace(/\W/g, '-')}`);
  writeFileSync(file, '');
  window.pipe(file);
  return { window, written: () => readFileSync(file, 'latin1') };
}

/** The window's screen once `test` holds; else the error shows the last one. */
async function screen(window: TmuxWindow, test: (lines: string[]) => boolean, what: string, escapes = false): Promise<string[]> {
  let last: string[] = [];
  try {
    return await until(() => {
      last = window.capture(escapes);
      return test(last) ? last : null;
    }, what);
  } catch (error) {
    throw new Error(`${(error as Error).message}; the screen:\n${text(last)}`, { cause: error });
  }
}

/** Sends a prompt to an agent and waits until serve has the turn's record, ended, with its change read. */
async function turn(name: string, prompt: string, number: number): Promise<TurnRecord> {
  expect(home.run(['send', name, prompt, '--submit', '--scope', 'all']).code).toBe(0);
  return until(async () => {
    const found = (await home.rpc('turn.list', { surface_id: ids[name] })).turns.find((t) => t.turn === number);
    return found?.ended && (found.change === null || found.change.end_commit) ? found : null;
  }, `turn ${number} of ${name} ended`);
}

// eslint-disable-next-line no-control-regex -- tmux's own SGR sequences
const plain = (line: string) => line.replace(/\x1b\[[0-9;]*m/g, '');
/** A line of `capture -e` whose text (escapes removed) holds `needle`. */
const lineWith = (lines: string[], needle: string) => lines.find((l) => plain(l).includes(needle)) ?? '';
/** Green as tmux's capture writes it: palette 2 in a sequence of its own or among other attributes. */
const GREEN = /\x1b\[(?:[0-9;]*;)?(?:32|38;5;2)(?:;[0-9;]*)?m/; // eslint-disable-line no-control-regex

test('attaching counts as the person looking: the digest starts from then', async () => {
  const before = Date.now();
  const looked = (await home.rpc('fleet.digest', {})).looked_at_ms;
  expect(looked === null || looked < before).toBe(true);
  // No turn has ended yet, so no Done in front of it is seen: only attaching itself can say it looked.
  const { window } = attach();
  await screen(window, (l) => /─ \d+ coder/.test(text(l)), 'attached');
  await until(async () => ((await home.rpc('fleet.digest', {})).looked_at_ms ?? 0) >= before || null, 'looked_at_ms set by attach');
  window.keys('C-b', 'd');
  await until(() => window.dead || null, 'detached');
});

test("prefix t lists the pane's turns coloured by their ending, follows a new one, and opens git's diff: coloured, controls as text, paged, --stat; q goes back, Esc closes", async () => {
  await turnThatEdits(home.rpc, ids.coder, 'permission to edit\n@write src/app.js console.log("\\x1b[31mred\\x1b[0m")\n@append README more');
  const { window, written } = attach();
  await screen(window, (l) => /─ \d+ coder/.test(text(l)), 'attached');
  await screen(window, (l) => l.at(-1)!.includes('C-b t turns'), 'the key in the hints');

  window.keys('C-b', 't');
  const list = await screen(window, (l) => text(l).includes('Turns of coder, newest first') && /▸ #1 +\S+ +finished +2 files \+2 -0/.test(text(l)), 'the list');
  expect(list.at(-1)).toContain('TURNS');
  const listed = await screen(window, (l) => GREEN.test(lineWith(l, '#1 ')), 'the finished turn in green', true);
  expect(plain(lineWith(listed, '#1 '))).toContain('permission to edit');

  window.keys('Enter');
  const diff = await screen(window, (l) => text(l).includes('+more'), 'the diff');
  expect(text(diff)).toMatch(/turn #1 +finished +2 files \+2 -0/);
  // The ESC the file holds is drawn as ^[, never told to the outer terminal.
  expect(text(diff)).toContain('+console.log("^[[31mred^[[0m")');
  expect(written()).not.toContain('\x1b[31mred');
  const coloured = window.capture(true);
  expect(lineWith(coloured, '+console.log(')).toMatch(GREEN);
  expect(lineWith(coloured, '@@ ')).toMatch(/\x1b\[(?:[0-9;]*;)?(?:36|38;5;6)(?:;[0-9;]*)?m/); // eslint-disable-line no-control-regex
  expect(diff.at(-1)).toContain('DIFF');
  window.type('q');
  await screen(window, (l) => /▸ #1 /.test(text(l)) && !text(l).includes('+more'), 'back to the list');

  // A turn that starts and ends while the list is open comes into it; the selection stays on its turn.
  const lines = Array.from({ length: 80 }, (_, i) => `line-${String(i + 1).padStart(2, '0')}`);
  await turnThatEdits(home.rpc, ids.coder, `permission for notes\n@write notes.txt ${lines.join('\\x0a')}`);
  await screen(window, (l) => / {2}#2 +\S+ +finished +1 file \+80 -0/.test(text(l)) && /▸ #1 /.test(text(l)), 'the new turn listed');
  window.type('k');
  await screen(window, (l) => /▸ #2 /.test(text(l)), 'the new turn selected');
  window.keys('Enter');
  // 32 rows less the status line and the header: 30 lines a page, the file's first lines 6 below the top.
  const shows = (l: string[], n: number) => l.some((line) => line.includes(`+line-${String(n).padStart(2, '0')}`));
  await screen(window, (l) => shows(l, 1) && shows(l, 24) && !shows(l, 25), 'the first page');
  window.keys('PageDown');
  await screen(window, (l) => shows(l, 25) && shows(l, 54) && !shows(l, 24), 'the next page');
  window.type('j');
  await screen(window, (l) => shows(l, 55) && !shows(l, 25), 'a line down');
  window.type('G');
  await screen(window, (l) => shows(l, 80) && !shows(l, 50), 'the bottom');
  window.type('b');
  await screen(window, (l) => shows(l, 50) && !shows(l, 80), 'a page up');
  window.type('g');
  await screen(window, (l) => shows(l, 1) && text(l).includes('diff --git a/notes.txt'), 'the top');
  window.type('s');
  await screen(window, (l) => text(l).includes('1 file changed, 80 insertions(+)') && text(l).includes('turn #2') && !shows(l, 1), 'the --stat form');
  window.type('s');
  await screen(window, (l) => shows(l, 1), 'the diff again');
  window.keys('Escape');
  await screen(window, (l) => /▸ #2 /.test(text(l)) && !shows(l, 1), 'Esc goes back to the list');
  window.keys('Escape');
  await screen(window, (l) => !text(l).includes('Turns of coder') && l.at(-1)!.includes('C-b ? help'), 'Esc closes the overlay');
  // The pane under it is drawn again: the agent's own screen.
  await screen(window, (l) => text(l).includes('done: permission for notes'), "the agent's screen");
}, scaled(120_000));

test('the list opens on the newest turn; a pane without turns says so; a pane outside git shows serve’s refusal; a narrow terminal cuts every line; the help names the key', async () => {
  await turn('loose', 'look around', 1);
  await home.rpc('surface.focus', { surface_id: ids.coder });
  const { window } = attach();
  await screen(window, (l) => text(l).includes('ready$'), 'attached');
  // The list opens on the newest turn.
  window.keys('C-b', 't');
  await screen(window, (l) => /▸ #2 /.test(text(l)) && / {2}#1 /.test(text(l)), 'the newest selected');
  window.type('q');
  await home.rpc('surface.focus', { surface_id: ids.sh });
  await screen(window, (l) => !text(l).includes('Turns of coder') && l.at(-1)!.includes(`▸ ${ids.sh} sh`), 'closed, the shell focused');
  window.keys('C-b', '?');
  await screen(window, (l) => /t +turns and diffs/.test(text(l)), 'the help');
  window.type('q');
  window.keys('C-b', 't');
  await screen(window, (l) => text(l).includes('Turns of sh') && text(l).includes('no turns: only an agent that declares its state'), 'no turns');
  window.type('q');
  await screen(window, (l) => !text(l).includes('Turns of sh'), 'closed');

  await home.rpc('surface.focus', { surface_id: ids.loose });
  await screen(window, (l) => l.at(-1)!.includes(`▸ ${ids.loose} loose`), 'the other agent focused');
  window.keys('C-b', 't');
  await screen(window, (l) => /▸ #1 +\S+ +finished +no git/.test(text(l)), 'its turn, no git');
  window.keys('Enter');
  await screen(window, (l) => text(l).includes('turn 1 has no change to show (its pane was not in a git work tree)'), "serve's refusal");
  window.type('q');

  // Narrow: no sidebar, each line cut to the width with an ellipsis, nothing wrapped onto the next.
  window.resize(36, 12);
  const narrow = await screen(window, (l) => l.length === 12 && l.some((line) => /^ ▸ #1 .*…\s*$/.test(line)), 'the list cut to 36 columns');
  expect(narrow[0]).toMatch(/^ Turns of loose, newest first\s*$/);
  expect(narrow.at(-1)).toMatch(/TURNS/);
  window.keys('Enter');
  await screen(window, (l) => /^ turn #1 +finished/.test(l[0]) && /^ no_change: turn 1 .*…\s*$/.test(l[1]), 'the refusal, narrow');
  expect(window.dead).toBe(false);
});
