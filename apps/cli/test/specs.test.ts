import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { join } from 'node:path';
import { connectHost } from '@paneflow/instance/connect';
import { resolveEndpoints } from '@paneflow/instance/endpoints';
import { makeHome, ROOT, scaled, screen, until, type Home } from '@paneflow/testing';

const FIXTURE_AGENT = join(ROOT, 'fixtures/agent.mjs');
const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-C', cwd, ...args], { encoding: 'utf8' });

/** A real repository: a commit, an ignored .env, api/ and web/. */
function makeRepo(home: Home): string {
  const repo = join(home.dir, 'repo');
  mkdirSync(join(repo, 'api'), { recursive: true });
  mkdirSync(join(repo, 'web'));
  writeFileSync(join(repo, 'api/main.py'), 'print("api")\n');
  writeFileSync(join(repo, 'web/index.html'), '<h1>web</h1>\n');
  writeFileSync(join(repo, '.gitignore'), '.env*\n');
  writeFileSync(join(repo, '.env'), 'SECRET=local\n');
  git(home.dir, 'init', '-q', '-b', 'main', repo);
  git(repo, '-c', 'user.email=t@example.com', '-c', 'user.name=t', 'add', '.');
  git(repo, '-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-q', '-m', 'initial');
  symlinkSync(FIXTURE_AGENT, join(home.dir, 'bin/codex'));
  return repo;
}

let home: Home;
let repo: string;
beforeAll(() => {
  home = makeHome({ PANEFLOW_IPC_SCRIPTING: '1', PANEFLOW_IPC_ORCHESTRATION: '1' });
  repo = makeRepo(home);
});
afterAll(() => home.cleanup());


describe('paneflow up', () => {
  test('an invalid spec exits 2, names the file and line, and creates nothing', () => {
    const file = join(repo, 'bad.toml');
    writeFileSync(file, '[[panes]]\nagent = "claude"\ncommand = "x"\n[[panes]]\ncwd = "/nowhere"\n');
    const result = home.run(['up', file]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${file}:2: pane 1: agent: agent and command are exclusive; give one`);
    expect(result.stderr).toContain(`${file}:5: pane 2: cwd: /nowhere does not exist or is not a directory`);
    expect(home.run(['serve', 'status']).code).toBe(1);
  });

  test('--dry-run prints the plan and touches nothing', () => {
    const file = join(repo, 'team.toml');
    copyFileSync(join(ROOT, 'examples/two-agents.toml'), file);
    const plan = home.run(['up', file, '--dry-run']).json<{ panes: Array<Record<string, unknown>> }>();
    expect(plan.panes.map((p) => p.name)).toEqual(['login', 'api', 'server']);
    expect(plan.panes[0]).toMatchObject({ agent: 'claude-code', command: 'claude', cwd: `${repo}.worktrees/feat-login`, worktree: { action: 'create', branch: 'feat/login' } });
    expect(plan.panes[2]).toMatchObject({ port_offset: expect.any(Number), env: { APP_ENV: 'dev' } });
    expect(existsSync(`${repo}.worktrees`)).toBe(false);
    expect(home.run(['serve', 'status']).code).toBe(1);
  });

  test('the two-agent example: worktrees made, env copied, ports given, prompts prefilled and not submitted; teardown auto and keep', async () => {
    const file = join(repo, 'team.toml');
    const result = home.run(['up', file]);
    expect(result.code).toBe(0);
    const up = result.json<{ workspace: { index: number }; surfaces: Array<{ name: string; surface_id: number }>; warnings: string[] }>();
    expect(up.surfaces.map((s) => s.name)).toEqual(['login', 'api', 'server']);
    expect(git(repo, 'worktree', 'list')).toMatch(/feat-login.*\[feat\/login\]/);
    expect(readFileSync(`${repo}.worktrees/feat-login/.env`, 'utf8')).toBe('SECRET=local\n');

    const { surfaces } = await home.rpc('surface.list', { scope: 'all' });
    const byName = Object.fromEntries(surfaces.map((s) => [s.name, s]));
    expect(byName.login.cwd).toBe(`${repo}.worktrees/feat-login`);
    expect(byName['api'].cwd).toBe(`${repo}.worktrees/feat-api-pagination`);
    // The prompt is in the agent's input, not submitted: the agent stays idle.
    await screen(home, 'login', /Read AGENTS\.md, then fix the login redirect/);
    expect(home.run(['status', 'login', '--scope', 'all', '--json']).json()).toMatchObject({ tool: 'claude', state: 'idle' });
    const server = await screen(home, 'server', /Serving HTTP on .* port (\d+)/);
    expect(Number(/port (\d+)/.exec(server)![1])).toBeGreaterThanOrEqual(3000);

    writeFileSync(`${repo}.worktrees/feat-api-pagination/notes.txt`, 'uncommitted\n');
    await home.rpc('workspace.close', { index: up.workspace.index });
    expect(existsSync(`${repo}.worktrees/feat-login`)).toBe(false); // clean, auto: removed
    expect(existsSync(`${repo}.worktrees/feat-api-pagination`)).toBe(true); // keep
    expect(git(repo, 'branch', '--list', 'feat/login')).toMatch(/feat\/login/); // the branch stays
  }, scaled(90_000));

  test('teardown auto keeps a dirty worktree', async () => {
    const file = join(repo, 'dirty.toml');
    writeFileSync(file, '[[panes]]\ncwd = "."\nworktree = "feat/dirty"\n');
    const up = home.run(['up', file]).json<{ workspace: { index: number } }>();
    writeFileSync(`${repo}.worktrees/feat-dirty/scratch.txt`, 'work in progress\n');
    await home.rpc('workspace.close', { index: up.workspace.index });
    expect(existsSync(`${repo}.worktrees/feat-dirty/scratch.txt`)).toBe(true);
  });

  type Closed = { worktrees: Array<{ path: string; branch: string; removed: boolean; reason: string | null }> };
  const worktreeSpec = (file: string, ...panes: Array<[string, string]>) => {
    writeFileSync(join(repo, file), panes.map(([name, branch]) => `[[panes]]\nname = "${name}"\ncwd = "."\nworktree = "${branch}"\n`).join(''));
    const result = home.run(['up', join(repo, file)]);
    expect(result.code).toBe(0);
    return result.json<{ workspace: { index: number; name: string } }>();
  };

  test('close <pane>: a clean managed worktree goes with its pane (the branch stays); one with an uncommitted file is kept and reported, then removed with --force-worktree', () => {
    worktreeSpec('close-one.toml', ['wt-clean', 'feat/close-clean'], ['wt-dirty', 'feat/close-dirty']);
    const clean = `${repo}.worktrees/feat-close-clean`;
    const dirty = `${repo}.worktrees/feat-close-dirty`;
    const removed = home.run(['close', 'wt-clean']);
    expect([removed.code, removed.stderr]).toEqual([0, '']);
    expect(removed.json<Closed>().worktrees).toEqual([expect.objectContaining({ path: clean, branch: 'feat/close-clean', removed: true, reason: null })]);
    expect(existsSync(clean)).toBe(false);
    expect(git(repo, 'worktree', 'list')).not.toContain(clean);
    expect(git(repo, 'branch', '--list', 'feat/close-clean')).toMatch(/feat\/close-clean/);

    writeFileSync(join(dirty, 'scratch.txt'), 'work in progress\n');
    const kept = home.run(['close', 'wt-dirty']);
    expect(kept.code).toBe(0);
    expect(kept.stderr).toBe(`paneflow: kept worktree ${dirty} (feat/close-dirty): uncommitted changes; --force-worktree removes it\n`);
    expect(kept.json<Closed>().worktrees).toEqual([expect.objectContaining({ path: dirty, removed: false, reason: 'uncommitted changes' })]);
    expect(existsSync(join(dirty, 'scratch.txt'))).toBe(true);

    // The kept worktree is Paneflow's: a pane on its branch reuses it, and --force-worktree removes it.
    worktreeSpec('close-again.toml', ['wt-dirty-again', 'feat/close-dirty']);
    const forced = home.run(['close', 'wt-dirty-again', '--force-worktree']);
    expect([forced.code, forced.stderr]).toEqual([0, '']);
    expect(existsSync(dirty)).toBe(false);
    expect(git(repo, 'branch', '--list', 'feat/close-dirty')).toMatch(/feat\/close-dirty/);
  });

  test('a pane whose session is removed at the host, not through serve, tears down its worktree by the same rule', async () => {
    const up = worktreeSpec('host-removed.toml', ['hr-clean', 'feat/host-removed']);
    const path = `${repo}.worktrees/feat-host-removed`;
    const pane = (await home.rpc('surface.list', { scope: 'all' })).surfaces.find((s) => s.name === 'hr-clean')!;
    // Another client of the host's own protocol ends the session: serve hears only the host's `removed`.
    const { connection } = await connectHost(resolveEndpoints(home.env), 'test');
    try {
      await connection.request('session.stop', { session: pane.session });
      await connection.request('session.remove', { session: pane.session });
    } finally {
      connection.destroy();
    }
    await until(async () => !(await home.rpc('surface.list', { scope: 'all' })).surfaces.some((s) => s.surface_id === pane.surface_id) || null, 'the pane gone');
    await until(() => !existsSync(path) || null, 'its clean worktree removed');
    expect(git(repo, 'worktree', 'list')).not.toContain(path);
    expect(git(repo, 'branch', '--list', 'feat/host-removed')).toMatch(/feat\/host-removed/);
    await home.rpc('workspace.close', { index: up.workspace.index });
  });

  test('close --workspace tears down every pane by the same rule: a worktree with a commit no other branch holds is kept, then removed with --force-worktree', () => {
    const up = worktreeSpec('close-all.toml', ['ws-clean', 'feat/ws-clean'], ['ws-ahead', 'feat/ws-ahead']);
    const clean = `${repo}.worktrees/feat-ws-clean`;
    const ahead = `${repo}.worktrees/feat-ws-ahead`;
    writeFileSync(join(ahead, 'done.txt'), 'committed\n');
    git(ahead, 'add', 'done.txt');
    git(ahead, '-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-q', '-m', 'work');
    const kept = home.run(['close', '--workspace', up.workspace.name]);
    expect(kept.code).toBe(0);
    expect(kept.stderr).toBe(`paneflow: kept worktree ${ahead} (feat/ws-ahead): 1 commit(s) on feat/ws-ahead that no other branch or remote holds (unpushed or unmerged); --force-worktree removes it\n`);
    expect(existsSync(clean)).toBe(false);
    expect(existsSync(join(ahead, 'done.txt'))).toBe(true);

    const again = worktreeSpec('close-all-again.toml', ['ws-ahead-again', 'feat/ws-ahead']);
    // `up` made its workspace the active one: the default of --workspace.
    const forced = home.run(['close', '--workspace', '--force-worktree']);
    expect([forced.code, forced.stderr]).toEqual([0, '']);
    expect(forced.json()).toMatchObject({ closed: again.workspace.index, worktrees: [expect.objectContaining({ path: ahead, removed: true })] });
    expect(existsSync(ahead)).toBe(false);
    expect(git(repo, 'log', '--oneline', '-1', 'feat/ws-ahead')).toMatch(/work/); // the commit stays on its branch
  });

  test("a worktree's setup runs in the new worktree, after the env files are copied; a failing setup is a warning", async () => {
    const file = join(repo, 'setup.toml');
    writeFileSync(file, '[[panes]]\ncwd = "."\nworktree = "feat/setup"\nsetup = "test -f .env && pwd -P > setup-ran.txt"\n[[panes]]\ncwd = "."\nworktree = "feat/setup-fails"\nsetup = "echo no luck; exit 3"\n');
    const result = home.run(['up', file]);
    expect(result.code).toBe(0);
    const up = result.json<{ workspace: { index: number }; warnings: string[] }>();
    const worktree = `${repo}.worktrees/feat-setup`;
    expect(readFileSync(join(worktree, 'setup-ran.txt'), 'utf8')).toBe(`${realpathSync(worktree)}\n`);
    expect(up.warnings).toEqual(['worktree feat/setup-fails: setup exited 3: no luck']);
    await home.rpc('workspace.close', { index: up.workspace.index });
  });

  test('ports are bind-probed: a stride with a port taken on 127.0.0.1, or on ::1, is skipped', async () => {
    const servers: Server[] = [];
    const take = (host: string) =>
      new Promise<number | null>((resolve, reject) => {
        const server = createServer();
        server.once('error', (error: NodeJS.ErrnoException) => (error.code === 'EADDRNOTAVAIL' || error.code === 'EAFNOSUPPORT' ? resolve(null) : reject(error)));
        server.listen({ host, port: 0, exclusive: true }, () => {
          servers.push(server);
          resolve((server.address() as AddressInfo).port);
        });
      });
    /** The port `up --dry-run` gives the pane when `taken` lies in the first stride. */
    const portAround = (taken: number) => {
      const base = taken - 4;
      const file = join(repo, 'ports.toml');
      writeFileSync(file, `port_base = ${base}\n[[panes]]\ncwd = "."\ncommand = "true"\nenv = { PORT = "\${port_offset}" }\n`);
      const result = home.run(['up', file, '--dry-run']);
      expect(result.code).toBe(0);
      const port = result.json<{ panes: Array<{ port_offset: number }> }>().panes[0].port_offset;
      // A later stride of the same base, not the one that holds the taken port.
      return { strideOfBase: (port - base) % 10 === 0, skipped: port >= base + 10 };
    };
    try {
      const v4 = await take('127.0.0.1');
      expect(portAround(v4!)).toEqual({ strideOfBase: true, skipped: true });
      const v6 = await take('::1');
      if (v6 !== null) expect(portAround(v6)).toEqual({ strideOfBase: true, skipped: true });
    } finally {
      await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
    }
  });

  test('a branch checked out elsewhere is refused', () => {
    const file = join(repo, 'main.toml');
    writeFileSync(file, '[[panes]]\ncwd = "."\nworktree = "main"\n');
    const result = home.run(['up', file]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/branch 'main' is checked out in .*repo, a worktree Paneflow does not manage/);
  });
});

describe('paneflow flow run', () => {
  const FANOUT = `
name = "fanout"
[defaults]
timeout_secs = 30
[[step]]
id = "probe"
foreach = ["api", "web"]
pane = { name = "probe-\${item}", command = "echo marker-$ITEM; PS1= exec bash --norc --noprofile", env = { ITEM = "\${item}" } }
ready = { pattern = '^marker-\${item}$' }
capture = { var = "found", lines = 1 }
[[step]]
id = "join"
needs = ["probe"]
send = { target = "probe[api]", text = "echo joined \${found.api} \${found.web}", submit = true }
ready = { pattern = '^joined marker-api marker-web$' }
capture = { var = "joined", lines = 1 }
`;

  test('a fan-out of two shells and a join that receives both captures runs to the end', () => {
    const file = join(repo, 'fanout.toml');
    writeFileSync(file, FANOUT);
    const result = home.run(['flow', 'run', file, '--json']);
    expect(result.stderr).toMatch(/flow: join: done/);
    expect(result.code).toBe(0);
    const report = result.json<Record<string, unknown>>();
    expect(report).toMatchObject({
      name: 'fanout',
      ok: true,
      workspace: { index: expect.any(Number), id: expect.any(String) },
      captures: { found: { api: 'marker-api', web: 'marker-web' }, joined: 'joined marker-api marker-web' },
    });
    expect((report.steps as Array<{ id: string; status: string }>).map((s) => [s.id, s.status])).toEqual([
      ['probe[api]', 'done'],
      ['probe[web]', 'done'],
      ['join', 'done'],
    ]);
  }, scaled(90_000));

  test('a ready barrier that never matches exits 4 and leaves its panes', () => {
    const file = join(repo, 'stuck.toml');
    writeFileSync(file, '[[step]]\nid = "wait"\npane = { name = "stuck", command = "sleep 600" }\nready = { pattern = "^never$", timeout_secs = 2 }\n');
    const result = home.run(['flow', 'run', file, '--json']);
    expect(result.code).toBe(4);
    expect(result.json()).toMatchObject({ ok: false, steps: [{ id: 'wait', status: 'timeout' }] });
    expect(home.run(['status', 'stuck', '--scope', 'all']).code).toBe(0);
  });

  test('a send target that does not resolve fails its step and the flow exits 3', () => {
    const file = join(repo, 'unresolved.toml');
    writeFileSync(file, '[[step]]\nid = "root"\npane = { name = "lonely", command = "sleep 600" }\n[[step]]\nid = "poke"\nneeds = ["root"]\nsend = { target = "nobody-by-this-name", text = "hello" }\n');
    const result = home.run(['flow', 'run', file, '--json']);
    expect(result.code).toBe(3);
    expect(result.json()).toMatchObject({
      ok: false,
      steps: [
        { id: 'root', status: 'done' },
        { id: 'poke', status: 'failed', error: expect.stringContaining("send.target: no pane matches 'nobody-by-this-name'") },
      ],
    });
  });

  test("a send step's selector resolves in the flow's workspace, not the caller's; its ready barrier sees text already on screen", () => {
    const caller = home.run(['new', '--name', 'caller', '--cwd', home.dir]).json<{ id: string }>();
    const file = join(repo, 'elsewhere.toml');
    writeFileSync(
      file,
      '[defaults]\ntimeout_secs = 30\n' +
        `[[step]]\nid = "sh"\npane = { name = "flow-own-shell", command = "echo early-$((40+2)); PS1= exec bash --norc --noprofile" }\nready = { pattern = '^early-42$' }\n` +
        `[[step]]\nid = "poke"\nneeds = ["sh"]\nsend = { target = "flow-own-sh", text = "true", submit = true }\nready = { pattern = '^early-42$' }\n`,
    );
    // Run from a pane of another workspace: its selectors would look there.
    const result = home.run(['flow', 'run', file, '--json'], { env: { PANEFLOW_WORKSPACE_ID: caller.id } });
    expect(result.json()).toMatchObject({ ok: true, steps: [{ id: 'sh', status: 'done' }, { id: 'poke', status: 'done', error: null }] });
    expect(result.code).toBe(0);
  }, scaled(60_000));

  test("a send step's idle wait is bounded by defaults.timeout_secs", async () => {
    expect(home.run(['start']).code).toBe(0);
    const file = join(repo, 'never-idle.toml');
    writeFileSync(
      file,
      '[defaults]\ntimeout_secs = 2\n' +
        '[[step]]\nid = "noisy"\npane = { name = "noisy", command = "while :; do echo tick; sleep 0.2; done" }\n' +
        '[[step]]\nid = "poke"\nneeds = ["noisy"]\nsend = { target = "noisy", text = "x" }\n',
    );
    const run = home.start(['flow', 'run', file, '--json']);
    // Far past the 2 s, far short of the 300 s of a bare `wait --idle`: a hang is cut off here.
    let timer: NodeJS.Timeout | undefined;
    const code = await Promise.race([run.exited, new Promise<'hung'>((resolve) => (timer = setTimeout(() => resolve('hung'), 60_000)))]);
    clearTimeout(timer);
    if (code === 'hung') run.child.kill('SIGINT');
    expect(code).toBe(4);
    const report = JSON.parse(run.lines.join('\n')) as { workspace: { index: number } };
    expect(report).toMatchObject({ ok: false, steps: [{ id: 'noisy', status: 'done' }, { id: 'poke', status: 'timeout', error: 'the target pane never went idle within 2 s' }] });
    await home.rpc('workspace.close', { index: report.workspace.index }); // the noisy shell stops
  }, scaled(90_000));

  test('fail_fast (the default): after a failure nothing more starts, what is running ends', async () => {
    // `good` gets ready only once `bad` has timed out, and `later` needs `good`.
    const release = join(home.dir, 'release-good');
    const file = join(repo, 'failfast.toml');
    writeFileSync(
      file,
      `[[step]]\nid = "bad"\npane = { name = "ff-bad", command = "sleep 600" }\nready = { pattern = "^never$", timeout_secs = 1 }\n` +
        `[[step]]\nid = "good"\npane = { name = "ff-good", command = "until [ -e '${release}' ]; do sleep 0.1; done; echo good-ready; exec sleep 600" }\nready = { pattern = "^good-ready$", timeout_secs = 120 }\n` +
        `[[step]]\nid = "later"\nneeds = ["good"]\npane = { name = "ff-later", command = "sleep 600" }\n`,
    );
    const run = home.start(['flow', 'run', file, '--json']);
    await until(() => run.stderr.includes('flow: bad: timeout'), 'bad timed out', 60_000);
    writeFileSync(release, '');
    expect(await run.exited).toBe(4);
    const report = JSON.parse(run.lines.join('\n')) as { steps: Array<{ id: string; status: string }> };
    expect(report.steps.map((s) => [s.id, s.status])).toEqual([
      ['bad', 'timeout'],
      ['good', 'done'],
      ['later', 'skipped'],
    ]);
    expect(home.run(['status', 'ff-later', '--scope', 'all']).code).toBe(3); // never made
  }, scaled(90_000));

  test('Ctrl-C stops the orchestration: its steps cancelled, nothing more starts, the panes stay, exit 1', async () => {
    const file = join(repo, 'interrupted.toml');
    writeFileSync(file, '[[step]]\nid = "slow"\npane = { name = "int-slow", command = "sleep 600" }\nready = { pattern = "^never$", timeout_secs = 600 }\n[[step]]\nid = "after"\nneeds = ["slow"]\npane = { name = "int-after", command = "sleep 600" }\n');
    const run = home.start(['flow', 'run', file, '--json']);
    await until(() => run.stderr.includes('flow: slow: started'), 'the flow started', 60_000);
    run.child.kill('SIGINT');
    expect(await run.exited).toBe(1);
    expect(run.stderr).toContain('flow: interrupted: the orchestration stops, the panes stay');
    const report = JSON.parse(run.lines.join('\n')) as { ok: boolean; steps: Array<{ id: string; status: string }> };
    expect(report.ok).toBe(false);
    expect(report.steps.map((s) => [s.id, s.status])).toEqual([
      ['slow', 'cancelled'],
      ['after', 'cancelled'],
    ]);
    expect(home.run(['status', 'int-slow', '--scope', 'all']).code).toBe(0); // the pane stays
    expect(home.run(['status', 'int-after', '--scope', 'all']).code).toBe(3); // never made
  });

  test('an invalid flow exits 2 before anything happens; a submitting flow without scripting exits 1, even as a dry run', () => {
    const bad = join(repo, 'cycle.toml');
    writeFileSync(bad, '[[step]]\nid = "a"\npane = {}\nneeds = ["b"]\n[[step]]\nid = "b"\npane = {}\nneeds = ["a"]\n');
    const invalid = home.run(['flow', 'run', bad]);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toMatch(/dependency cycle: a → b → a/);
    const gated = makeHome();
    try {
      const submits = join(gated.dir, 'submits.toml');
      writeFileSync(submits, '[[step]]\nid = "a"\npane = { agent = "claude", prompt = "hi" }\nsubmit = true\n');
      const dry = gated.run(['flow', 'run', submits, '--dry-run']);
      expect(dry.code).toBe(1);
      expect(dry.stderr).toMatch(/PANEFLOW_IPC_SCRIPTING=1/);
    } finally {
      gated.cleanup();
    }
  });

  test('the review example: two agents implement on worktrees, a reviewer gets both notes', () => {
    const file = join(repo, 'review.toml');
    copyFileSync(join(ROOT, 'examples/review.toml'), file);
    const result = home.run(['flow', 'run', file, '--json']);
    expect(result.stderr).toMatch(/flow: review: done/);
    expect(result.code).toBe(0);
    const report = result.json<{ ok: boolean; captures: { notes: Record<string, string> } }>();
    expect(report.ok).toBe(true);
    expect(report.captures.notes.api).toMatch(/^DONE$/m);
    expect(report.captures.notes.web).toMatch(/Implement the ticket in web/);
    expect(existsSync(`${repo}.worktrees/review-api/api/main.py`)).toBe(true);
  }, scaled(120_000));
});
