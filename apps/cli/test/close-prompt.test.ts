// `paneflow close` on a terminal: the y/N question a person answers (REFERENCE.md §1.4), typed
// into a real terminal (tmux) with send-keys and read back with capture-pane.
import { CLI, makeHome, runsExactly, scaled, Tmux, until, type Home, type TmuxWindow } from '@paneflow/testing';

let home: Home;
let tmux: Tmux;
beforeAll(() => {
  home = makeHome({ PANEFLOW_IPC_SCRIPTING: '1' });
  expect(home.run(['new', '--name', 'prompts', '--cwd', home.dir]).code).toBe(0);
  tmux = new Tmux();
});
afterAll(() => {
  tmux?.kill();
  home?.cleanup();
});

const paneIds = () => home.run(['ls', '--scope', 'all']).json<{ surfaces: Array<{ surface_id: number }> }>().surfaces.map((s) => s.surface_id);

/** `paneflow close <name>` in a terminal of its own; the shell around it prints its exit code (`exit=N`). */
const closeOnTerminal = (name: string) =>
  tmux.window(['/bin/sh', '-c', `'${process.execPath}' '${CLI}' close '${name}'; echo "exit=$?"`], { env: home.env, dir: home.dir, cols: 120, rows: 10 });

async function screenShows(window: TmuxWindow, pattern: RegExp, what: string): Promise<string> {
  let last = '';
  try {
    return await until(() => {
      last = window.capture().join('\n');
      return pattern.test(last) ? last : null;
    }, what);
  } catch (error) {
    throw new Error(`${(error as Error).message}; the screen:\n${last}`, { cause: error });
  }
}

/** The exit code of `paneflow close`, as the shell around it printed it. */
const exitCode = async (window: TmuxWindow) => /^exit=(\d+)$/m.exec(await screenShows(window, /^exit=\d+$/m, 'the CLI’s exit code'))![1];

/** A shell pane running `sleep`: closing it needs a yes. */
async function busyShell(name: string): Promise<number> {
  const surface = (await home.rpc('surface.split', { direction: 'h', name })).surface_id;
  expect(home.run(['send', String(surface), `sleep 4${surface}4`, '--submit']).code).toBe(0);
  await until(() => home.run(['ls', '--scope', 'all']).stdout.includes(`"sleep 4${surface}4"`) || null, 'the sleep runs in front');
  return surface;
}

test('on a terminal close asks y/N with serve’s reason: Enter (no) keeps the pane, exit 1; y closes it, exit 0', async () => {
  const surface = await busyShell('asked');
  const question = new RegExp(`surface ${surface} \\(asked\\): 'sleep 4${surface}4' is running in it\\nclose anyway\\? \\[y/N\\] $`, 'm');

  const declined = closeOnTerminal('asked');
  await screenShows(declined, question, 'the question');
  declined.keys('Enter');
  await screenShows(declined, /^paneflow: not closed$/m, 'the refusal');
  expect(await exitCode(declined)).toBe('1');
  expect(paneIds()).toContain(surface);

  const accepted = closeOnTerminal('asked');
  await screenShows(accepted, question, 'the question again');
  accepted.type('y');
  accepted.keys('Enter');
  expect(await exitCode(accepted)).toBe('0');
  expect(accepted.capture().join('\n')).toContain(`{"closed":${surface},`);
  expect(paneIds()).not.toContain(surface);
});

test('any answer but y or yes is no', async () => {
  const surface = await busyShell('not-yes');
  const window = closeOnTerminal('not-yes');
  await screenShows(window, /close anyway\? \[y\/N\] $/m, 'the question');
  window.type('yep');
  window.keys('Enter');
  expect(await exitCode(window)).toBe('1');
  expect(paneIds()).toContain(surface);
  expect(home.run(['close', 'not-yes', '--force']).code).toBe(0);
});

describe('a host that does not answer (stopped with SIGSTOP)', () => {

  test('close asks with a warning that nothing can be stopped, even for an idle shell (exit 1 off a terminal); --force takes the pane out, and the host stops its program once it answers again', async () => {
    // Serve gives up on the host after 2 s here, not 10 s.
    const stuck = makeHome({ PANEFLOW_IPC_SCRIPTING: '1', PANEFLOW_SERVE_HOST_TIMEOUT_MS: '2000' });
    try {
      expect(stuck.run(['new', '--cwd', stuck.dir]).code).toBe(0);
      const surface = (await stuck.rpc('surface.split', { direction: 'h', name: 'held' })).surface_id;
      // In the background: the shell holds the terminal, so a reachable host would close it unasked.
      const sleeper = ['sleep', `7${surface}77`];
      expect(stuck.run(['send', 'held', `${sleeper.join(' ')} &`, '--submit']).code).toBe(0);
      await until(() => runsExactly(sleeper), 'the background sleep');
      const listed = () => stuck.run(['ls', '--scope', 'all']).json<{ surfaces: Array<{ surface_id: number }> }>().surfaces.map((s) => s.surface_id);
      const [other] = listed();

      const hostPid = stuck.run(['host', 'status']).json<{ pid: number }>().pid;
      process.kill(hostPid, 'SIGSTOP');
      try {
        const asked = stuck.run(['close', 'held']);
        expect(asked.code).toBe(1);
        expect(asked.stderr).toBe(
          `paneflow: close needs confirmation: the host does not answer (it died or hangs), so surface ${surface} (held) cannot be stopped: closing only takes it out of the workspace, and what runs there may keep running (use --force to close anyway)\n`,
        );
        expect(listed()).toEqual([other, surface]);

        const forced = stuck.run(['close', 'held', '--force']);
        expect([forced.code, forced.stderr]).toEqual([0, '']);
        expect(forced.json()).toEqual({ closed: surface, workspace_closed: false, worktrees: [] });
        expect(listed()).toEqual([other]);
        expect(runsExactly(sleeper)).toBe(true);
      } finally {
        process.kill(hostPid, 'SIGCONT');
      }
      // Back, the host is told to stop the session serve let go of, and it is not adopted back as a pane.
      await until(() => !runsExactly(sleeper), 'the closed pane’s program stopped once the host answers');
      expect(listed()).toEqual([other]);
    } finally {
      stuck.cleanup();
    }
  }, scaled(60_000));
});
