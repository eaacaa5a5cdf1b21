// `paneflow doctor` in a temp home: all right, then each thing that breaks, as a user would break it;
// and the terminal probe as a person meets it, inside tmux (which does not answer OSC 7501) and
// inside a Paneflow pane (which does).
import { CLI, makeHome, refuseWrites, Tmux, until, type Home } from '@paneflow/testing';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

interface Check {
  group: string;
  name: string;
  state: 'ok' | 'info' | 'warn' | 'fail';
  detail: string;
  fix: string | null;
}

let home: Home;
let undo: (() => void) | null = null;
beforeEach(() => {
  home = makeHome({ PANEFLOW_IPC_SCRIPTING: '1' });
  // Only the fixture agent (bin/claude) among the agents, whatever else this machine has installed.
  home.env.PATH = `${join(home.dir, 'bin')}:${dirname(process.execPath)}:/usr/bin:/bin`;
});
afterEach(() => {
  undo?.();
  undo = null;
  home.cleanup();
});

function doctor(env: Record<string, string> = {}) {
  const result = home.run(['doctor', '--json'], { env });
  expect(result.stderr).toBe('');
  const { ok, checks } = result.json<{ ok: boolean; checks: Check[] }>();
  const named = (name: string) => {
    const found = checks.find((c) => c.name === name);
    if (!found) throw new Error(`no check '${name}' in ${JSON.stringify(checks.map((c) => c.name))}`);
    return found;
  };
  return { code: result.code, ok, checks, named, failed: checks.filter((c) => c.state === 'fail').map((c) => c.name) };
}

function startInstance() {
  expect(home.run(['start'])).toMatchObject({ code: 0, stderr: '' });
  expect(home.run(['hooks', 'setup']).code).toBe(0);
}

test('everything right: a running instance, the fixture agent current and wired; exit 0', () => {
  startInstance();
  const report = doctor();
  expect(report.failed).toEqual([]);
  expect(report).toMatchObject({ code: 0, ok: true });
  expect(report.named('serve')).toMatchObject({ state: 'ok' });
  expect(report.named('host')).toMatchObject({ state: 'ok' });
  // What runs is what is installed: the daemons' builds against `paneflow-host|serve --version`.
  expect(report.named('serve build')).toMatchObject({ state: 'ok' });
  expect(report.named('host build')).toMatchObject({ state: 'ok' });
  expect(report.named('public socket')).toMatchObject({ state: 'ok' });
  expect(report.named('home')).toMatchObject({ state: 'ok' });
  expect(report.named('gates').detail).toContain('scripting');
  expect(report.named('claude-code')).toMatchObject({ state: 'ok' });
  expect(report.named('claude-code').detail).toMatch(/^2\.1\.332 at .*bin\/claude \(declares its turns since 2\.1\.295\)$/);
  expect(report.named('claude-code hooks')).toMatchObject({ state: 'ok' });
  expect(report.named('claude-code mcp')).toMatchObject({ state: 'ok' });
  expect(report.named('claude-code answers')).toMatchObject({ state: 'ok' });
  // stdin is a pipe here: no terminal is asked anything.
  expect(report.named('terminal')).toMatchObject({ state: 'info' });

  const human = home.run(['doctor']);
  expect(human.code).toBe(0);
  expect(human.stdout).toMatch(/^Instance\n/);
  expect(human.stdout).toMatch(/\n {2}ok {4}claude-code hooks +installed in /);
  expect(human.stdout).toMatch(/\n0 broken, \d+ warnings\n$/);
});

test('nothing running: warnings, not failures; doctor starts nothing', () => {
  const report = doctor();
  expect(report.failed).toEqual([]);
  expect(report.named('serve')).toMatchObject({ state: 'warn', fix: 'paneflow start' });
  expect(report.named('claude-code hooks')).toMatchObject({ state: 'warn', fix: 'paneflow hooks setup' });
  expect(home.run(['serve', 'status']).code).toBe(1);
});

test('the allocator: jemalloc where the system has it; without, glibc trimmed by the host’s module, or a warning when the build made none', () => {
  expect(doctor().named('allocator')).toMatchObject({ state: 'ok', detail: expect.stringMatching(/^jemalloc \(.*libjemalloc\.so\.2\)$/) });
  const glibc = doctor({ PANEFLOW_HOST_JEMALLOC: '0' }).named('allocator');
  expect(glibc).toMatchObject({ state: 'ok', detail: expect.stringMatching(/^glibc malloc, its heap trimmed after panes close \(.*apps\/host\/dist\/paneflow-malloc-trim\.node\)$/) });
  // A host installed where no compiler built the module: the bundle alone.
  const lone = join(home.dir, 'lone-host/paneflow-host.cjs');
  mkdirSync(dirname(lone));
  copyFileSync(join(dirname(CLI), '../../host/dist/paneflow-host.cjs'), lone);
  const none = doctor({ PANEFLOW_HOST_JEMALLOC: '0', PANEFLOW_HOST_BIN: lone }).named('allocator');
  expect(none).toMatchObject({ state: 'warn', fix: 'sudo apt-get install libjemalloc2, then restart the host' });
  expect(none.detail).toMatch(/^no libjemalloc2 and no paneflow-malloc-trim\.node/);
});

test('a stale hook: it runs a paneflow-ai-hook that is no longer there; FAIL with its fix, exit 1', () => {
  startInstance();
  const settings = join(home.env.HOME!, '.claude/settings.json');
  const text = readFileSync(settings, 'utf8');
  const hook = /"command": "([^"]*paneflow-ai-hook[^" ]*)/.exec(text)![1];
  writeFileSync(settings, text.replaceAll(hook, '/opt/old-paneflow/paneflow-ai-hook.cjs'));
  const report = doctor();
  expect(report.failed).toEqual(['claude-code hooks']);
  expect(report.named('claude-code hooks')).toMatchObject({ fix: 'paneflow hooks setup' });
  expect(report.named('claude-code hooks').detail).toMatch(/^stale in .*settings\.json/);
  expect(report).toMatchObject({ code: 1, ok: false });
  // The fix it names mends it.
  expect(home.run(['hooks', 'setup']).code).toBe(0);
  expect(doctor().failed).toEqual([]);
});

test('an agent too old to declare OSC 7501: FAIL, naming the first version that does', () => {
  const report = doctor({ FIXTURE_AGENT_VERSION: '2.0.14' });
  expect(report.failed).toEqual(['claude-code']);
  expect(report.named('claude-code').detail).toMatch(/^2\.0\.14 at .* is too old to declare its turns \(OSC 7501 since 2\.1\.295\)/);
  expect(report.named('claude-code').fix).toBe('upgrade Claude Code to 2.1.295 or later');
  expect(report.code).toBe(1);
});

test('a socket other users may connect to: FAIL with its mode', () => {
  startInstance();
  const before = doctor().named('public socket');
  expect(before).toMatchObject({ state: 'ok', detail: expect.stringMatching(/paneflow\.sock \(0600\)$/) });
  const publicSocket = before.detail.replace(/ \(0600\)$/, '');
  chmodSync(publicSocket, 0o666);
  const report = doctor();
  expect(report.failed).toEqual(['public socket']);
  expect(report.named('public socket').detail).toBe(`${publicSocket} has mode 0666: other users may connect`);
  expect(report.code).toBe(1);
});

test('a home that refuses writes: FAIL, saying that nothing is saved', () => {
  startInstance();
  expect(home.run(['stop', '--force']).code).toBe(0);
  undo = refuseWrites(home.env.PANEFLOW_HOME!);
  const report = doctor();
  expect(report.failed).toEqual(['home']);
  expect(report.named('home').detail).toMatch(/cannot be written \((EACCES|EPERM)\): nothing that changes is saved/);
});

test('the terminal: tmux answers DA1 but not the OSC 7501 query; a Paneflow pane answers it before DA1', async () => {
  const tmux = new Tmux();
  try {
    const window = tmux.window(['sh', '-c', `${process.execPath} ${CLI} doctor; sleep 600`], { env: home.env, dir: home.dir, cols: 200, rows: 60 });
    const screen = await until(() => {
      const lines = window.capture().join('\n');
      return /\d+ broken, \d+ warnings/.test(lines) ? lines : null;
    }, 'doctor done in tmux');
    expect(screen).toMatch(/ok {4}DA1 +tmux answers DA1/);
    expect(screen).toMatch(/warn {2}OSC 7501 +tmux does not answer the OSC 7501 query/);
    // Nothing the terminal answered leaked onto the screen.
    expect(screen).not.toMatch(/\[\?\d|7501;\?/);
  } finally {
    tmux.kill();
  }

  startInstance();
  const created = home.run(['new', '--name', 'doc', '--cwd', home.dir]).json<{ id: string; surface_id: number }>();
  // Sent from inside the workspace, as a script in one of its panes would.
  const inWorkspace = { env: { PANEFLOW_WORKSPACE_ID: created.id } };
  const pane = String(created.surface_id);
  expect(home.run(['send', pane, `${process.execPath} ${CLI} doctor`, '--submit'], inWorkspace)).toMatchObject({ code: 0, stderr: '' });
  const shown = await until(() => {
    const read = home.run(['read', pane, '--raw', '--lines', '200'], inWorkspace).stdout;
    return /\d+ broken, \d+ warnings/.test(read) ? read : null;
  }, 'doctor done in a pane');
  expect(shown).toMatch(/ok +OSC 7501 +this Paneflow pane answers the OSC 7501 query before DA1/);
});
