import { resolveEndpoints } from '@paneflow/instance';
import type { StatusObject } from '@paneflow/protocol';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { makeHome, ROOT, screen, until, type Home } from '@paneflow/testing';

const HOOK = join(ROOT, 'apps/ai-hook/dist/paneflow-ai-hook.cjs');

let home: Home;
let socket: string;
let agent: StatusObject;
let workspaceId: string;

const status = () => home.run(['status', String(agent.surface_id), '--json']).json<StatusObject>();

/** The bundled hook, as an agent runs it: the event on stdin, the pane's variables in its environment. */
function hook(event: string, input: unknown, env: Record<string, string> = {}, args: string[] = []) {
  return spawnSync(process.execPath, [HOOK, ...args, event], {
    input: typeof input === 'string' ? input : JSON.stringify(input),
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH,
      PANEFLOW_SESSION_ID: agent.session,
      PANEFLOW_SURFACE_ID: String(agent.surface_id),
      PANEFLOW_WORKSPACE_ID: workspaceId,
      PANEFLOW_SOCKET_PATH: socket,
      PANEFLOW_AI_PID: String(agent.pid),
      ...env,
    },
    timeout: 10_000,
  });
}

beforeAll(async () => {
  home = makeHome({ PANEFLOW_IPC_SCRIPTING: '1', PANEFLOW_IPC_ORCHESTRATION: '1' });
  expect(home.run(['start']).code).toBe(0);
  socket = resolveEndpoints(home.env).publicSocket;
  // An unnamed agent pane: its title comes from the prompt its hooks report.
  const up = await home.rpc('workspace.up', { name: 'w', layout: 'even_h', panes: [{ command: 'claude --work-ms 1500', cwd: home.dir, focus: false, env: {} }] });
  workspaceId = up.workspace.id;
  const surface = up.surfaces[0].surface_id;
  agent = await until(() => {
    const s = home.run(['status', String(surface), '--json']).json<StatusObject>();
    return s.tool === 'claude' && s.reason === 'declared' && s.pid !== null ? s : undefined;
  }, 'the fixture agent declared idle');
});
afterAll(() => home.cleanup());

describe('paneflow-ai-hook against a real instance', () => {
  test('events piped into the bundled hook reach serve and show in status --json, sessions and the title; stdout and stderr stay empty', async () => {
    const before = status();
    for (const [event, input] of [
      ['SessionStart', { session_id: 'prov-1', cwd: ROOT }],
      ['UserPromptSubmit', { session_id: 'prov-1', prompt: 'Fix the flaky login test\nand explain why', transcript_path: '/tmp/t.jsonl' }],
      ['PreToolUse', { session_id: 'prov-1', tool_name: 'Bash', tool_input: { command: 'npm test' } }],
    ] as const) {
      const run = hook(event, input);
      expect([run.status, run.stdout, run.stderr]).toEqual([0, '', '']);
    }
    const during = status();
    expect(during).toMatchObject({ hooked: true, active_tool_name: 'Bash', provider_session_id: 'prov-1' });
    expect(hook('Stop', { session_id: 'prov-1', last_assistant_message: 'Tests pass.' }).status).toBe(0);
    const after = status();
    expect(after).toMatchObject({ last_result: 'Tests pass.', active_tool_name: null, provider_session_id: 'prov-1' });
    // Metadata only: the reduced state never moved.
    for (const s of [during, after]) expect([s.status, s.state, s.state_seq, s.outcome]).toEqual([before.status, before.state, before.state_seq, before.outcome]);

    const row = home.run(['sessions', '--json']).json<{ sessions: Array<Record<string, unknown>> }>().sessions.find((r) => r.session === agent.session)!;
    expect(row).toMatchObject({ provider_session_id: 'prov-1', transcript_path: '/tmp/t.jsonl', hook_revision: 4 });
    const pane = home.run(['ls']).json<{ surfaces: Array<{ surface_id: number; title: string }> }>().surfaces.find((s) => s.surface_id === agent.surface_id)!;
    expect(pane.title).toBe('Fix the flaky login test');
  });

  test('a permission notification while idle raises nothing and moves nothing', async () => {
    const before = status();
    const watch = home.start(['watch', '--type', 'notification', '--type', 'status_changed', '--type', 'ai.notification']);
    await watch.line((l) => l.includes('"subscribed"'));
    expect(hook('Notification', { notification_type: 'permission_prompt', message: 'Allow Bash?' }).status).toBe(0);
    await watch.line((l) => l.includes('"ai.notification"'));
    const after = status();
    expect([after.status, after.state_seq, after.message]).toEqual([before.status, before.state_seq, null]);
    watch.child.kill();
    expect(watch.lines.filter((l) => !l.includes('"ai.notification"') && !l.includes('"subscribed"'))).toEqual([]);
  });

  test('the Finished notice carries the Stop hook’s last result', async () => {
    const watch = home.start(['watch', '--type', 'notification']);
    await watch.line((l) => l.includes('"subscribed"'));
    expect(home.run(['send', String(agent.surface_id), 'run the tests', '--submit']).code).toBe(0);
    expect(hook('Stop', { session_id: 'prov-1', last_assistant_message: 'All 42 tests pass.' }).status).toBe(0);
    const notice = JSON.parse(await watch.line((l) => l.includes('"finished"'))) as { title: string; body: string };
    watch.child.kill();
    expect(notice).toMatchObject({ title: 'Fix the flaky login test', body: 'All 42 tests pass.' });
  });

  test('serve refuses stale, foreign and unknown frames, and says why', async () => {
    const frame = { tool: 'claude', session: agent.session, pid: agent.pid, emitted_at_ms: Date.now(), payload: {} };
    expect(await home.rpc('ai.stop', { ...frame, emitted_at_ms: 1 })).toEqual({ accepted: false, reason: 'stale' });
    expect(await home.rpc('ai.stop', { ...frame, emitted_at_ms: Date.now() - 60 * 60 * 1000 })).toEqual({ accepted: false, reason: 'stale' });
    expect(await home.rpc('ai.stop', { ...frame, tool: 'gemini' })).toEqual({ accepted: false, reason: 'unknown_tool' });
    expect(await home.rpc('ai.stop', { ...frame, session: '00000000-0000-4000-8000-000000000000' })).toEqual({ accepted: false, reason: 'unknown_session' });
    expect(status().last_result).toBe('All 42 tests pass.');
  });

  test('the metadata survives a serve restart (the host keeps it in the manifest)', async () => {
    const manifest = JSON.parse(readFileSync(join(home.env.PANEFLOW_HOME!, 'host/sessions', `${agent.session}.json`), 'utf8')) as { hook: Record<string, unknown> };
    expect(manifest.hook).toMatchObject({ provider_session_id: 'prov-1', last_result: 'All 42 tests pass.' });
    expect(home.run(['serve', 'stop']).code).toBe(0);
    expect(home.run(['serve', 'start']).code).toBe(0);
    expect(status()).toMatchObject({ last_result: 'All 42 tests pass.', provider_session_id: 'prov-1', hooked: true });
  });

  test('the hook command that `hooks setup` installs runs, through sh, and reaches serve', async () => {
    expect(home.run(['hooks', 'setup'], { env: { PANEFLOW_AI_HOOK_BIN: HOOK, PANEFLOW_MCP_BIN: '/opt/paneflow-mcp' } }).code).toBe(0);
    const settings = JSON.parse(readFileSync(join(home.env.HOME!, '.claude/settings.json'), 'utf8')) as { hooks: Record<string, Array<{ hooks: Array<{ command: string }> }>> };
    const command = settings.hooks.UserPromptSubmit[0].hooks[0].command;
    expect(command).toBe(`'${HOOK}' UserPromptSubmit`);
    const run = spawnSync('sh', ['-c', command], {
      input: JSON.stringify({ session_id: 'prov-2', prompt: 'Second task' }),
      encoding: 'utf8',
      env: { PATH: process.env.PATH, PANEFLOW_SESSION_ID: agent.session, PANEFLOW_SOCKET_PATH: socket },
    });
    expect([run.status, run.stdout, run.stderr]).toEqual([0, '', '']);
    await until(() => (status().provider_session_id === 'prov-2' ? true : undefined), 'the hook reached serve');
  });

  test('without PANEFLOW_AI_PID the hook names the agent that ran it, through sh, by its parents', async () => {
    // A stand-in for the agent, in a pane of its own: a program named claude (which the host sees
    // as claude-code) that, on a line of input, runs its hook through `sh -c` as Claude Code does,
    // with no PANEFLOW_AI_PID in its environment.
    const dir = join(home.dir, 'stand-in');
    mkdirSync(dir, { recursive: true });
    const program = join(dir, 'claude');
    writeFileSync(
      program,
      `#!/usr/bin/env node
const { spawnSync } = require('node:child_process');
delete process.env.PANEFLOW_AI_PID;
process.stdout.write('stand-in ' + process.pid + ' ready\\n');
process.stdin.once('data', () => {
  const run = spawnSync('sh', ['-c', ${JSON.stringify(`'${HOOK}' UserPromptSubmit`)}], { input: JSON.stringify({ session_id: 'by-parent', prompt: 'Found by its parent' }), encoding: 'utf8' });
  process.stdout.write('hook exited ' + run.status + (run.stdout + run.stderr) + '\\n');
});
setInterval(() => {}, 1000);
`,
    );
    chmodSync(program, 0o755);
    const up = await home.rpc('workspace.up', { name: 'stand-in', layout: 'even_h', panes: [{ command: program, cwd: dir, focus: false, env: {} }] });
    const surface = up.surfaces[0].surface_id;
    const standIn = () => home.run(['status', String(surface), '--json']).json<StatusObject>();
    const pid = Number(/stand-in (\d+) ready/.exec(await screen(home, String(surface), /stand-in \d+ ready/))![1]);
    // The host sees it as the pane's agent, by that pid; no hook has spoken for it yet.
    const seen = await until(() => {
      const s = standIn();
      return s.tool === 'claude' && s.pid === pid ? s : undefined;
    }, 'the stand-in seen as the pane\'s claude');
    expect(seen).toMatchObject({ hooked: false, provider_session_id: null });
    await home.rpc('surface.send_text', { surface_id: surface, text: 'go', submit: true });
    await screen(home, String(surface), /^hook exited 0$/m);
    // The frame arrived, and the pid it carried is the stand-in's: serve counts the pane as hooked.
    const after = await until(() => {
      const s = standIn();
      return s.provider_session_id === 'by-parent' ? s : undefined;
    }, 'the hook reached serve');
    expect(after).toMatchObject({ hooked: true, pid, tool: 'claude' });
  });
});

describe('paneflow-ai-hook without an instance', () => {
  test('outside a Paneflow pane it exits 0 at once, touching nothing', () => {
    const run = hook('Stop', { last_assistant_message: 'x' }, { PANEFLOW_SESSION_ID: '', PANEFLOW_HOOK_LOG: join(home.dir, 'never.log') });
    expect([run.status, run.stdout, run.stderr]).toEqual([0, '', '']);
    expect(() => readFileSync(join(home.dir, 'never.log'))).toThrow();
  });

  // How long it takes is bench/ai-hook.mjs's to measure (`npm run bench:ai-hook`), not a test's.
  test('with no socket it exits 0, silent; the log says why when asked', () => {
    const log = join(home.dir, 'hook.log');
    const run = hook('Stop', { last_assistant_message: 'x' }, { PANEFLOW_SOCKET_PATH: join(home.dir, 'absent.sock'), PANEFLOW_HOOK_LOG: log });
    expect([run.status, run.stdout, run.stderr]).toEqual([0, '', '']);
    expect(readFileSync(log, 'utf8')).toMatch(/ENOENT/);
  });

  test('a socket that accepts and never answers costs the request budget, then exit 0', async () => {
    const silent: Server = createServer(() => undefined);
    const path = join(home.dir, 'silent.sock');
    await new Promise<void>((resolve) => silent.listen(path, resolve));
    try {
      const log = join(home.dir, 'silent.log');
      // The kernel completes the connection from the listen backlog; nobody ever answers it.
      const run = hook('Stop', {}, { PANEFLOW_SOCKET_PATH: path, PANEFLOW_HOOK_LOG: log });
      expect([run.status, run.stdout, run.stderr]).toEqual([0, '', '']);
      expect(readFileSync(log, 'utf8')).toMatch(/no answer within 350 ms/);
    } finally {
      silent.close();
    }
  });

  test('an agent that never closes stdin still gets exit 0 within the budget', async () => {
    const log = join(home.dir, 'open.log');
    const child = spawn(process.execPath, [HOOK, 'Stop'], {
      env: { PATH: process.env.PATH, PANEFLOW_SESSION_ID: agent.session, PANEFLOW_SOCKET_PATH: socket, PANEFLOW_HOOK_LOG: log },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    child.stdin.write('{"last_assistant_message": "never ends"');
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.stdin.destroy();
    expect([code, output]).toEqual([0, '']);
    expect(readFileSync(log, 'utf8')).toMatch(/gave up after 700 ms/);
  });

  test('bad input never fails the agent: not JSON, a relative socket path, an unknown tool, no event', () => {
    const log = join(home.dir, 'bad.log');
    const runs = [
      hook('Stop', '{not json', { PANEFLOW_HOOK_LOG: log }),
      hook('Stop', {}, { PANEFLOW_SOCKET_PATH: 'relative.sock', PANEFLOW_HOOK_LOG: log }),
      hook('Stop', {}, { PANEFLOW_HOOK_LOG: log }, ['--tool', 'gemini']),
      hook('', {}, { PANEFLOW_HOOK_LOG: log }),
    ];
    for (const run of runs) expect([run.status, run.stdout, run.stderr]).toEqual([0, '', '']);
    const text = readFileSync(log, 'utf8');
    for (const why of ['input is not JSON', 'must be an absolute path', 'unknown tool "gemini"', 'usage:']) expect(text).toContain(why);
  });
});
