import { assignPorts, parseWorkspace, SpecError, branchSlug } from '../src';
import { fakeHost } from './host';

const FILE = '/work/specs/team.toml';
const plan = (text: string, host = fakeHost()) => parseWorkspace(text, FILE, host);
/** The spec's problems, one line each, as the CLI prints them. */
function problems(text: string, host = fakeHost()): string[] {
  try {
    parseWorkspace(text, FILE, host);
  } catch (error) {
    if (error instanceof SpecError) return error.message.split('\n');
    throw error;
  }
  throw new Error('the spec was valid');
}

describe('a valid workspace spec', () => {
  test('defaults: name Workspace, layout even_h, port_base 3000, a shell in the cwd of up', () => {
    expect(plan('[[panes]]\n')).toEqual({
      name: 'Workspace',
      layout: 'even_h',
      port_base: 3000,
      panes: [{ index: 1, name: null, cwd: '/work', command: null, agent: null, prompt: null, focus: false, env: {}, port_offset: null, uses_port_offset: false, worktree: null }],
    });
  });

  test('every field of a pane', () => {
    const result = plan(`
name = "api"
layout = "main_vertical"
port_base = 4000
[[panes]]
name = "lead"
agent = "Claude"
cwd = "~"
prompt = "Read AGENTS.md, then wait."
focus = true
[[panes]]
name = "server"
command = "npm run dev"
cwd = "."
env = { PORT = "\${port_offset}", MODE = "dev" }
`);
    expect(result).toMatchObject({ name: 'api', layout: 'main_vertical', port_base: 4000 });
    expect(result.panes[0]).toMatchObject({ name: 'lead', agent: 'claude-code', command: 'claude', cwd: '/home/me', prompt: 'Read AGENTS.md, then wait.', focus: true });
    expect(result.panes[1]).toMatchObject({ name: 'server', command: 'npm run dev', cwd: '/work/specs', env: { PORT: '${port_offset}', MODE: 'dev' }, uses_port_offset: true });
  });

  test('relative cwds are taken from the spec file, canonicalised', () => {
    expect(plan('[[panes]]\ncwd = "../specs/./"\n').panes[0].cwd).toBe('/work/specs');
  });

  test('ports come in strides of 10, in file order, to the panes that use them', () => {
    const result = plan('[[panes]]\nenv = { A = "${port_offset}" }\n[[panes]]\n[[panes]]\nenv = { B = "http://localhost:${port_offset}/x" }\n');
    expect(assignPorts(result.panes, [3000, 3020]).map((p) => [p.port_offset, p.env])).toEqual([
      [3000, { A: '3000' }],
      [null, {}],
      [3020, { B: 'http://localhost:3020/x' }],
    ]);
  });
});

describe('worktrees', () => {
  const repo = (worktrees: Array<{ path: string; branch: string | null }> = []) =>
    fakeHost({ dirs: ['/work/api', '/work/api/web'], repos: { '/work/api': [{ path: '/work/api', branch: 'main' }, ...worktrees] }, branches: ['main', 'feat/old'] });

  test('a new branch: <repo>.worktrees/<slug>, created from HEAD, the same subdirectory', () => {
    const [pane] = plan('[[panes]]\ncwd = "/work/api/web"\nworktree = "feat/login"\n', repo()).panes;
    expect(pane.cwd).toBe('/work/api.worktrees/feat-login/web');
    expect(pane.worktree).toEqual({
      branch: 'feat/login',
      from: 'HEAD',
      repo_root: '/work/api',
      path: '/work/api.worktrees/feat-login',
      action: 'create',
      branch_exists: false,
      copy_env: true,
      setup: null,
      setup_timeout_secs: 300,
      teardown: 'auto',
      subdir: 'web',
    });
  });

  test('an existing branch, from, copy_env, setup, its timeout, teardown keep', () => {
    const [pane] = plan('[[panes]]\ncwd = "/work/api"\nworktree = "feat/old"\nfrom = "main"\ncopy_env = false\nsetup = "npm ci"\nsetup_timeout_secs = 60\nworktree_teardown = "keep"\n', repo()).panes;
    expect(pane.worktree).toMatchObject({ branch_exists: true, from: 'main', copy_env: false, setup: 'npm ci', setup_timeout_secs: 60, teardown: 'keep', subdir: '' });
  });

  test("a Paneflow worktree for the branch is reused; one elsewhere is an error", () => {
    const ours = repo([{ path: '/work/api.worktrees/feat-x', branch: 'feat/x' }]);
    expect(plan('[[panes]]\ncwd = "/work/api"\nworktree = "feat/x"\n', ours).panes[0].worktree).toMatchObject({ action: 'reuse' });
    const theirs = repo([{ path: '/elsewhere/x', branch: 'feat/x' }]);
    expect(problems('[[panes]]\ncwd = "/work/api"\nworktree = "feat/x"\n', theirs)).toEqual([
      `${FILE}:3: pane 1: worktree: branch 'feat/x' is checked out in /elsewhere/x, a worktree Paneflow does not manage`,
    ]);
  });

  test('two branches with one slug: the second gets the hash of its name', () => {
    const panes = plan('[[panes]]\ncwd = "/work/api"\nworktree = "feat/a"\n[[panes]]\ncwd = "/work/api"\nworktree = "feat-a"\n', repo()).panes;
    expect(panes[0].worktree!.path).toBe('/work/api.worktrees/feat-a');
    expect(panes[1].worktree!.path).toMatch(/^\/work\/api\.worktrees\/feat-a-[0-9a-f]{8}$/);
  });

  test('slugs count bytes', () => {
    expect(branchSlug('fix/été')).toBe('fix---t--');
  });

  test.each([
    ['[[panes]]\nworktree = "x"\n', 'pane 1: worktree: requires an explicit cwd inside a git repository'],
    ['[[panes]]\ncwd = "/work"\nworktree = "x"\n', 'pane 1: worktree: cwd /work is not inside a git repository'],
    ['[[panes]]\ncwd = "/work/api"\nworktree = "-x"\n', "pane 1: worktree: '-x' is not a branch name (empty, or starting with -)"],
    ['[[panes]]\ncwd = "/work/api"\nworktree = ""\n', "pane 1: worktree: '' is not a branch name (empty, or starting with -)"],
    ['[[panes]]\ncwd = "/work/api"\nworktree = "..."\n', "pane 1: worktree: '...' gives an empty worktree name"],
    ['[[panes]]\nsetup = "make"\n', 'pane 1: setup: requires worktree'],
    ['[[panes]]\nfrom = "main"\ncopy_env = true\n', 'pane 1: from: requires worktree'],
  ])('%j: %s', (text, message) => {
    expect(problems(text, repo()).join('\n')).toContain(message);
  });
});

describe('errors name the file, the line, the field and what was expected', () => {
  test.each([
    ['name = "x"\ncolour = "red"\n[[panes]]\n', `${FILE}:2: colour: unknown key`],
    ['[[panes]]\ncmd = "ls"\n', `${FILE}:2: pane 1: cmd: unknown key`],
    ['layout = "grid"\n[[panes]]\n', `${FILE}:1: layout: expected one of even_h, even_v, main_vertical, tiled, got 'grid'`],
    ['port_base = 80\n[[panes]]\n', `${FILE}:1: port_base: must be >= 1024, got 80`],
    ['port_base = 65530\n[[panes]]\n', `${FILE}:1: port_base: must be <= 65526, got 65530`],
    ['[[panes]]\nfocus = "yes"\n', `${FILE}:2: pane 1: focus: expected a boolean, got 'yes'`],
    ['[[panes]]\nenv = { A = 1 }\n', `${FILE}:2: pane 1: env.A: expected a string, got 1`],
    ['[[panes]]\nagent = "claude"\ncommand = "ls"\n', `${FILE}:2: pane 1: agent: agent and command are exclusive; give one`],
    ['[[panes]]\nprompt = "hi"\n', `${FILE}:2: pane 1: prompt: prompt requires agent`],
    ['[[panes]]\nagent = "claudia"\n', `${FILE}:2: pane 1: agent: 'claudia' is not a known agent (claude-code, codex)`],
    ['[[panes]]\ncwd = "/nope"\n', `${FILE}:2: pane 1: cwd: /nope does not exist or is not a directory`],
    ['[[panes]]\ncwd = "~/gone"\n', `${FILE}:2: pane 1: cwd: /home/me/gone does not exist or is not a directory`],
    ['[[panes]]\ncommand = "echo ${port_offset}"\n', `${FILE}:2: pane 1: command: \${port_offset} is only allowed in env values`],
    ['[[panes]]\nenv = { A = "${nope}" }\n', `${FILE}:2: pane 1: env.A: unknown variable \${nope}`],
    ['[[panes]]\nenv = { A = "${port_offset" }\n', `${FILE}:2: pane 1: env.A: an unclosed '\${'`],
    ['[[panes]]\nfocus = true\n[[panes]]\nfocus = true\n', `${FILE}:4: pane 2: focus: at most one pane may have focus`],
    ['[[panes]]\nname = "a"\n[[panes]]\nname = "A"\n', `${FILE}:4: pane 2: name: 'A' is already the name of pane 1`],
    ['name = "x"\n', `${FILE}: panes: required: at least one [[panes]]`],
    ['panes = []\n', `${FILE}: panes: at least one [[panes]] is required`],
    ['[[panes]]\nname = \n', `${FILE}:2: not valid TOML`],
  ])('%j', (text, message) => {
    expect(problems(text).some((line) => line.startsWith(message))).toBe(true);
  });

  test('an agent not on PATH says which command it looked for', () => {
    expect(problems('[[panes]]\nagent = "codex"\n', fakeHost({ onPath: [] }))).toEqual([`${FILE}:2: pane 1: agent: agent 'codex' not found on PATH (looked for codex)`]);
  });

  test('more than 32 panes', () => {
    expect(problems('[[panes]]\n'.repeat(33))).toEqual([`${FILE}: panes: at most 32 panes, not 33`]);
  });

  test('every problem is reported together', () => {
    expect(problems('layout = "x"\n[[panes]]\nagent = "nope"\n[[panes]]\ncwd = "/nope"\n')).toHaveLength(3);
  });

  test('a pane or workspace name with a control character (ESC, BEL, DEL, C1) is refused, and the message never echoes it', () => {
    const controls = problems('name = "ok"\n[[panes]]\nname = "a\\u001b]0;pwned\\u0007"\n[[panes]]\nname = "tab\\tbed"\n[[panes]]\nname = "c1\\u009b2J"\n');
    expect(controls).toEqual([
      `${FILE}:3: pane 1: name: holds the control character U+001B (at character 2); names may not hold control characters`,
      `${FILE}:5: pane 2: name: holds the control character U+0009 (at character 4); names may not hold control characters`,
      `${FILE}:7: pane 3: name: holds the control character U+009B (at character 3); names may not hold control characters`,
    ]);
    expect(problems('layout = "tiled"\nname = "w\\u007f"\n[[panes]]\n')).toEqual([`${FILE}:2: name: holds the control character U+007F (at character 2); names may not hold control characters`]);
    expect(plan('name = "日本 ✓"\n[[panes]]\nname = "🚀 rocket"\n').panes[0].name).toBe('🚀 rocket');
  });
});
