import { scaled, until } from '@paneflow/testing';
import { execFile, spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import { promisify } from 'node:util';

// The tarballs of tools/package.mjs, installed as people install them: plain npm into an empty
// prefix and an empty project, with no workspace above them and nothing of the repository on PATH.
// Then what was installed runs for real: the programs on PATH against an instance in a temp home,
// with a shell and the fixture agent in a pane (the agent imports the installed @paneflow/osc7501),
// the hooks that point at the installed files, `paneflow web` serving the renderer's files it
// carries, and the library from CommonJS, ESM and TypeScript.
const root = join(__dirname, '../..');
const PROGRAMS = ['paneflow', 'paneflow-host', 'paneflow-serve', 'paneflow-ai-hook', 'paneflow-mcp'];

const dir = realpathSync(mkdtempSync(join(tmpdir(), 'pf-package-')));
const prefix = join(dir, 'prefix');
const installed = join(prefix, 'lib/node_modules/paneflow');
const project = join(dir, 'project');
const claudeConfig = join(dir, 'claude');
const outsideRepo = (path: string) => path !== '' && !path.startsWith(root);

/** What the installed programs see: the prefix's bin and the system, a temp home, no PANEFLOW_* inherited. */
const env: NodeJS.ProcessEnv = {
  PATH: [join(prefix, 'bin'), dirname(process.execPath), '/usr/bin', '/bin'].join(':'),
  HOME: join(dir, 'user'),
  PANEFLOW_HOME: join(dir, 'home'),
  XDG_RUNTIME_DIR: join(dir, 'run'),
  CLAUDE_CONFIG_DIR: claudeConfig,
  CODEX_HOME: join(dir, 'codex'),
  SHELL: '/bin/bash',
  NO_COLOR: '1',
  PANEFLOW_IPC_SCRIPTING: '1',
};

/** npm keeps the user's HOME (its cache, and ~/.npmrc, which may name node's headers for node-gyp). */
const npmEnv: NodeJS.ProcessEnv = {
  ...Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('npm_') && !key.startsWith('PANEFLOW_') && key !== 'INIT_CWD' && key !== 'NODE_PATH')),
  PATH: (process.env.PATH ?? '').split(':').filter(outsideRepo).join(':'),
};

function npm(args: string[], cwd: string): Promise<unknown> {
  return promisify(execFile)('npm', [...args, '--prefer-offline', '--no-audit', '--no-fund'], { cwd, env: npmEnv, maxBuffer: 16 << 20 });
}

type Run = SpawnSyncReturns<string> & { json<T = Record<string, unknown>>(): T };

/** An installed program, found on PATH. */
function run(command: string, args: string[], input?: string): Run {
  const result = spawnSync(command, args, { cwd: env.HOME, env, input, encoding: 'utf8', timeout: 60_000 });
  return Object.assign(result, { json: <T>() => JSON.parse(result.stdout) as T });
}
const paneflow = (...args: string[]) => run('paneflow', args);
/** Status and stderr together, so that a failure shows why. */
const outcome = (result: { status: number | null; stderr: string }) => ({ status: result.status, stderr: result.stderr });

function tarball(name: string): string {
  const found = readdirSync(join(dir, 'out')).find((file) => file.startsWith(`${name}-`) && file.endsWith('.tgz'));
  if (!found) throw new Error(`tools/package.mjs made no ${name} tarball`);
  return join(dir, 'out', found);
}

beforeAll(async () => {
  for (const sub of ['user', 'run', 'claude', 'bin', 'project']) mkdirSync(join(dir, sub));
  expect(env.PATH!.split(':').every(outsideRepo)).toBe(true);
  await promisify(execFile)(process.execPath, [join(root, 'tools/package.mjs'), join(dir, 'out')], { cwd: root });
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'scratch', private: true }));
  // node-pty builds from source here: --allow-scripts is how a global install lets it (npm 11).
  await Promise.all([
    npm(['install', '--global', '--prefix', prefix, '--allow-scripts=node-pty', tarball('paneflow')], dir),
    npm(['install', tarball('paneflow-osc7501')], project),
  ]);
}, scaled(240_000));

/** Processes running a program of this prefix: only this test starts them. */
function survivors(): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(`${prefix}/`);
      } catch {
        return false; // gone meanwhile
      }
    })
    .map(Number);
}

afterAll(() => {
  if (existsSync(join(prefix, 'bin/paneflow'))) paneflow('stop', '--force');
  // A serve whose host cannot start never answers, so stop cannot reach it (a broken package).
  for (const pid of survivors()) process.kill(pid, 'SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

describe('the paneflow package', () => {
  test('puts the five programs on PATH, with node-pty its only dependency', () => {
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'));
    expect(Object.keys(manifest.bin).sort()).toEqual([...PROGRAMS].sort());
    expect(Object.keys(manifest.dependencies)).toEqual(['node-pty']);
    for (const program of PROGRAMS) expect(realpathSync(join(prefix, 'bin', program))).toBe(join(installed, manifest.bin[program]));
  });

  test('holds every run-time bundle where libs/instance/src/layout.json says programs look for it once installed', () => {
    const layout = JSON.parse(readFileSync(join(root, 'libs/instance/src/layout.json'), 'utf8')) as { programs: Record<string, { installed: string }>; web: Record<string, { installed: string }> };
    const places = [...Object.values(layout.programs), ...Object.values(layout.web)].map((place) => place.installed);
    expect(places.filter((place) => !existsSync(join(installed, place)))).toEqual([]);
  });

  test('holds the host’s malloc_trim module beside the host, and `paneflow doctor` finds it there for a host on glibc’s malloc', () => {
    const doctor = spawnSync('paneflow', ['doctor', '--json'], { cwd: env.HOME, env: { ...env, PANEFLOW_HOST_JEMALLOC: '0' }, encoding: 'utf8', timeout: 60_000 });
    const allocator = (JSON.parse(doctor.stdout) as { checks: { name: string; state: string; detail: string }[] }).checks.find((check) => check.name === 'allocator');
    expect(allocator).toMatchObject({ state: 'ok', detail: `glibc malloc, its heap trimmed after panes close (${join(installed, 'paneflow-malloc-trim.node')})` });
  });

  test('`paneflow --version` names the build it was packed from', () => {
    const version = paneflow('--version');
    expect(outcome(version)).toEqual({ status: 0, stderr: '' });
    const built = spawnSync(process.execPath, [join(root, 'apps/cli/dist/paneflow.cjs'), '--version'], { encoding: 'utf8' });
    expect(version.stdout).toBe(built.stdout);
    expect(version.stdout).toMatch(/^paneflow [0-9a-f]{12}\n$/);
  });

  test('runs an instance of its own programs: start, a shell and an agent in a pane, ps and ls, stop --force', async () => {
    const start = paneflow('start');
    expect(outcome(start)).toMatchObject({ status: 0 });
    const serve = start.json<{ serve: { pid: number } }>().serve.pid;
    const host = paneflow('host', 'status').json<{ pid: number }>().pid;
    // The program node runs: its first argument that is not a V8 flag (the host's `--max-semi-space-size`).
    const script = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(1).find((a) => !a.startsWith('--'));
    expect([script(serve), script(host)]).toEqual([join(installed, 'paneflow-serve.cjs'), join(installed, 'paneflow-host.cjs')]);

    const pane = paneflow('new', '--name', 'installed');
    expect(outcome(pane)).toMatchObject({ status: 0 });
    const id = String(pane.json<{ surface_id: number }>().surface_id);
    expect(outcome(paneflow('send', id, 'echo pf-$((6*7))', '--submit'))).toMatchObject({ status: 0 });
    expect(paneflow('wait', '--match', id, '--pattern', '^pf-42$', '--timeout', '30').json()).toMatchObject({ matched: 'pattern', line: 'pf-42' });

    // The login shell resets PATH, so the agent is typed by its path; it is a copy in the scratch
    // project, run as `claude`, so it is identified as Claude Code and speaks through the installed library.
    for (const file of ['agent.mjs', 'conversation.mjs']) copyFileSync(join(root, 'fixtures', file), join(project, file));
    chmodSync(join(project, 'agent.mjs'), 0o755);
    symlinkSync(join(project, 'agent.mjs'), join(dir, 'bin/claude'));
    expect(outcome(paneflow('send', id, join(dir, 'bin/claude'), '--submit'))).toMatchObject({ status: 0 });
    expect(paneflow('wait', '--match', id, '--pattern', 'fixture agent \\(declaring\\)', '--timeout', '30').json()).toMatchObject({ matched: 'pattern' });
    type Agents = { agents: Array<{ surface_id: number; runtime_id: string; state: string; outcome: string | null }> };
    const agent = await until(() => paneflow('ps', '--json').json<Agents>().agents.find((a) => String(a.surface_id) === id && a.state === 'idle'), 'ps lists the agent');
    expect(agent.runtime_id).toBe('claude-code');
    expect(paneflow('send', id, 'hello', '--submit').json()).toMatchObject({ started: true });
    expect(paneflow('wait', '--match', id, '--idle', '--timeout', '30').json()).toMatchObject({ matched: 'idle' });
    expect(paneflow('ps', '--json').json<Agents>().agents).toEqual([expect.objectContaining({ surface_id: Number(id), state: 'finished', outcome: 'completed' })]);
    expect(paneflow('ls').json<{ surfaces: Array<{ surface_id: number }> }>().surfaces.map((s) => s.surface_id)).toEqual([Number(id)]);

    expect(outcome(paneflow('stop', '--force'))).toMatchObject({ status: 0 });
    expect(paneflow('serve', 'status').status).toBe(1);
    expect(paneflow('host', 'status').status).toBe(1);
  }, scaled(120_000));

  test('`hooks setup` writes the installed hook and MCP server, and both run', () => {
    expect(outcome(paneflow('hooks', 'setup'))).toMatchObject({ status: 0 });
    const settings = JSON.parse(readFileSync(join(claudeConfig, 'settings.json'), 'utf8'));
    const command: string = settings.hooks.Stop.find((group: { _paneflow_managed?: boolean }) => group._paneflow_managed).hooks[0].command;
    const [, hook] = /^'([^']+)' Stop$/.exec(command) ?? [];
    expect(isAbsolute(hook) && hook.startsWith(`${prefix}/`)).toBe(true);
    expect(realpathSync(hook)).toBe(realpathSync(join(prefix, 'bin/paneflow-ai-hook')));
    // As Claude Code runs it: through sh, the event on stdin (no instance runs now).
    expect(outcome(run('sh', ['-c', command], '{}'))).toEqual({ status: 0, stderr: '' });

    const mcp: string = JSON.parse(readFileSync(join(claudeConfig, '.claude.json'), 'utf8')).mcpServers.paneflow.command;
    expect(mcp.startsWith(`${prefix}/`)).toBe(true);
    expect(realpathSync(mcp)).toBe(realpathSync(join(prefix, 'bin/paneflow-mcp')));
    const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '0' } } };
    const answer = run(mcp, [], JSON.stringify(initialize) + '\n');
    expect(outcome(answer)).toMatchObject({ status: 0 });
    expect(answer.json()).toMatchObject({ id: 1, result: { serverInfo: { name: 'paneflow' } } });
  });

  test('`paneflow web` serves the renderer from the package: refused without the token, the page with it', async () => {
    const web = spawn('paneflow', ['web'], { cwd: env.HOME, env });
    try {
      let out = '';
      web.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
      const url = new URL(await until(() => /^(http:\/\/\S+)\n/.exec(out)?.[1], 'the URL it prints', 30_000));
      const token = url.searchParams.get('token')!;
      expect(url.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect((await fetch(`${url.origin}/`)).status).toBe(403);
      expect((await fetch(`${url.origin}/?token=${token.slice(1)}`)).status).toBe(403);
      const first = await fetch(url, { redirect: 'manual' });
      expect(first.status).toBe(303);
      const cookie = first.headers.get('set-cookie')!.split(';')[0];
      expect(cookie).toBe(`paneflow-web-${url.port}=${token}`);
      const page = await fetch(`${url.origin}/`, { headers: { cookie } });
      expect(page.status).toBe(200);
      expect(await page.text()).toMatch(/<script src="web\.js"><\/script>\s*<script src="renderer\.js"><\/script>/);
      for (const asset of ['web.js', 'renderer.js', 'styles.css', 'phone.css', 'xterm.css']) {
        const file = await fetch(`${url.origin}/${asset}`, { headers: { cookie } });
        expect([asset, file.status]).toEqual([asset, 200]);
        expect((await file.text()).length).toBeGreaterThan(0);
      }
    } finally {
      web.kill('SIGTERM');
      if (web.exitCode === null) await new Promise((resolve) => web.once('exit', resolve));
      paneflow('stop', '--force');
    }
  });
});

describe('the @paneflow/osc7501 package', () => {
  const library = join(project, 'node_modules/@paneflow/osc7501');
  const node = (file: string, code: string) => {
    writeFileSync(join(project, file), code);
    const result = spawnSync(process.execPath, [file], { cwd: project, env, encoding: 'utf8' });
    expect(outcome(result)).toEqual({ status: 0, stderr: '' });
    return JSON.parse(result.stdout);
  };
  const report = { type: 'report', id: null, state: 'blocked', kind: 'permission', msg: 'approve?', title: null, app: null, progress: null };

  test('is required from CommonJS and imported from an ES module', () => {
    const feed = "feed('a' + encode({ state: 'blocked', kind: 'permission', msg: 'approve?' }) + 'b')";
    expect(node('use.cjs', `const { Scanner, encode } = require('@paneflow/osc7501');\nconsole.log(JSON.stringify({ at: require.resolve('@paneflow/osc7501'), ...new Scanner().${feed} }));\n`)).toEqual({
      at: join(library, 'dist/index.cjs'),
      items: [report],
      text: 'ab',
    });
    expect(node('use.mjs', `import { Scanner, encode } from '@paneflow/osc7501';\nconsole.log(JSON.stringify({ at: import.meta.resolve('@paneflow/osc7501'), ...new Scanner().${feed} }));\n`)).toEqual({
      at: `file://${join(library, 'dist/index.mjs')}`,
      items: [report],
      text: 'ab',
    });
  });

  test('type-checks from TypeScript, as CommonJS and as an ES module (which has no default export)', () => {
    const consumer = "import { Scanner, encode, type Parsed } from '@paneflow/osc7501';\nexport const items: Parsed[] = new Scanner().feed(encode({ state: 'done' })).items;\n";
    writeFileSync(join(project, 'consumer.cts'), consumer);
    writeFileSync(join(project, 'consumer.mts'), consumer);
    writeFileSync(join(project, 'default.mts'), "import osc from '@paneflow/osc7501';\nexport const scanner = new osc.Scanner();\n");
    const compilerOptions = { module: 'nodenext', strict: true, noEmit: true, skipLibCheck: false, types: [], lib: ['es2022'] };
    writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['consumer.cts', 'consumer.mts', 'default.mts'] }));
    const tsc = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', project, '--pretty', 'false'], { cwd: project, encoding: 'utf8' });
    // What index.mjs really exports: the one error is the default import.
    expect(tsc.stdout.trim().split('\n')).toEqual([expect.stringMatching(/^default\.mts\(1,8\): error TS1192: .* has no default export\.$/)]);
  });
});
