import { HostFrame, Manifest, READ_LINES_MAX, validate } from '@paneflow/protocol';
import { until } from '@paneflow/testing';
import { FIXTURE_AGENT, HostClient, records, running, startHost, type TestHost } from './helpers';
import { SCAN_INTERVAL_MS } from '../src/foreground';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

let host: TestHost;
let client: HostClient;
beforeAll(async () => {
  host = await startHost();
  client = await host.connect();
});
afterAll(() => host.cleanup());

const BASH = ['bash', '--norc', '--noprofile'];
const statusOf = (session: string) => (f: HostFrame) => f.type === 'status' && f.session === session;
const lifecycleOf = (session: string, lifecycle: string) => (f: HostFrame) =>
  f.type === 'lifecycle' && f.session === session && f.lifecycle === lifecycle;

describe('shells in real PTYs', () => {
  test('bash runs, takes input and its output reads back', async () => {
    const { session } = await client.create({ argv: BASH });
    await client.request('session.input', { session, text: 'echo "$((6 * 7))-ok"\r', origin: 'automation' });
    expect(await client.screenMatching(session, /^42-ok$/m)).toMatch(/^42-ok$/m);
  });

  test('input reaches the program in the order it came: a key written at once waits behind a paste that waits for the terminal', async () => {
    const { session } = await client.create({ argv: ['cat'] });
    // Not awaited one by one: the key arrives while the paste still waits for the terminal to settle.
    const paste = client.request('session.input', { session, text: 'pasted', origin: 'user', paste: true });
    const key = client.request('session.input', { session, text: '!', origin: 'user' });
    const after = client.request('session.input', { session, text: '?\r', origin: 'user' });
    await Promise.all([paste, key, after]);
    expect(await client.screenMatching(session, /^pasted!\?$/m)).toMatch(/^pasted!\?$/m);
  });

  test('the pane gets TERM, TERM_PROGRAM and its Paneflow identity', async () => {
    const { session } = await client.create({
      argv: ['sh', '-c', 'echo "T=$TERM P=$TERM_PROGRAM S=$PANEFLOW_SESSION_ID W=$PANEFLOW_WORKSPACE_ID N=$PANEFLOW_SURFACE_ID X=$MY_VAR"; sleep 30'],
      surface_id: 7,
      workspace_id: '00000000-0000-4000-8000-000000000001',
      env: { MY_VAR: 'mine' },
    });
    const text = await client.screenMatching(session, /X=mine/);
    expect(text).toContain(`T=xterm-256color P=ghostty S=${session} W=00000000-0000-4000-8000-000000000001 N=7 X=mine`);
    const { sessions } = await client.request('session.list', {});
    const manifest = sessions.find((m) => m.session === session)!;
    expect(validate(Manifest, manifest)).toBeNull();
    expect(manifest.process?.started_at).toBeGreaterThan(0);
  });

  test("a resize reaches the program and the host's terminal", async () => {
    const { session } = await client.create({ argv: BASH });
    await client.request('session.resize', { session, cols: 100, rows: 30 });
    await client.request('session.input', { session, text: 'stty size\r', origin: 'automation' });
    await client.screenMatching(session, /^30 100$/m);
    expect(await client.request('session.attach', { session, scrollback: 0 })).toMatchObject({ cols: 100, rows: 30 });
  });

  test('unicode and wide characters come back as written; a wrapped line is one line', async () => {
    const { session } = await client.create({ argv: ['sh', '-c', `printf '日本語 ✓ 🎉 café\\n'; printf '%0200d\\n' 0; sleep 30`] });
    const text = await client.screenMatching(session, /^0{200}$/m);
    expect(text.split('\n')).toEqual(['日本語 ✓ 🎉 café', '0'.repeat(200)]);
  });

  test('read counts lines from the end, clamps to 1–4000, and says eof only when it reaches the oldest kept line', async () => {
    const { session } = await client.create({ argv: ['sh', '-c', 'seq 1 5000; sleep 30'] });
    await client.screenMatching(session, /^5000$/m);
    expect(await client.request('session.read', { session, lines: 3 })).toMatchObject({ text: '4998\n4999\n5000', lines: 3, total_lines: 5000, eof: false });
    expect(await client.request('session.read', { session, lines: 2, offset: 10 })).toMatchObject({ text: '4989\n4990', eof: false });
    expect(await client.request('session.read', { session, lines: 2, offset: 4998 })).toMatchObject({ text: '1\n2', lines: 2, eof: true });
    expect(await client.request('session.read', { session, lines: 4000, offset: 1500 })).toMatchObject({ text: expect.stringMatching(/^1\n2\n/), lines: 3500, eof: true });
    expect((await client.request('session.read', { session, lines: 0 })).lines).toBe(1);
    expect((await client.request('session.read', { session, lines: 99_999 })).lines).toBe(READ_LINES_MAX);
    await expect(client.request('session.read', { session, offset: 5000 })).rejects.toMatchObject({ code: -32602 });
  });

  test('search is case-insensitive, 1-based from the oldest line, and says when it is cut', async () => {
    const { session } = await client.create({ argv: ['sh', '-c', 'printf "alpha\\nBeta\\nbetamax\\ngamma\\n"; sleep 30'] });
    await client.screenMatching(session, /gamma/);
    expect(await client.request('session.search', { session, pattern: 'BETA' })).toEqual({
      matches: [
        { line: 2, text: 'Beta' },
        { line: 3, text: 'betamax' },
      ],
      truncated: false,
    });
    expect(await client.request('session.search', { session, pattern: 'a', max_matches: 2 })).toMatchObject({ truncated: true });
  });

  test('output advances output_generation, pushed to followers', async () => {
    const { session } = await client.create({ argv: ['sh', '-c', 'echo one; sleep 30'] });
    const frame = await client.frame((f) => f.type === 'output' && f.session === session);
    expect(frame).toMatchObject({ output_generation: expect.any(Number) });
    expect((await client.request('session.read', { session })).output_generation).toBeGreaterThanOrEqual(1);
  });

  test("a program's DA1 and cursor-position queries are answered once each, by the host's terminal", async () => {
    // Raw input, so answers arrive as sent; DSR 5 last: its answer comes after the others'.
    const asker = `process.stdin.setRawMode(true); let got = '';
      process.stdin.on('data', (d) => { got += d; if (got.includes('\\x1b[0n')) console.log('got ' + JSON.stringify(got)); });
      process.stdout.write('\\x1b[c\\x1b[6n\\x1b[5n');`;
    const { session } = await client.create({ argv: [process.execPath, '-e', asker] });
    const text = await client.screenMatching(session, /^got .*$/m);
    expect(JSON.parse(/^got (.*)$/m.exec(text)![1])).toBe('\x1b[?1;2c\x1b[1;1R\x1b[0n');
  });

  test('an OSC 0 title is kept and pushed', async () => {
    const { session } = await client.create({ argv: ['sh', '-c', `printf '\\033]0;building api\\007'; sleep 30`] });
    await client.frame((f) => f.type === 'title' && f.session === session && f.title === 'building api');
    expect((await client.request('session.inspect', { session })).title).toBe('building api');
  });
});

describe('OSC 7501 in the host', () => {
  test("the fixture agent's query is answered before DA1, and its records reach a follower", async () => {
    const { session } = await client.create({ argv: [process.execPath, FIXTURE_AGENT] });
    const idle = await client.frame((f) => statusOf(session)(f) && records(f).includes('root:idle'));
    expect(idle).toMatchObject({ declared_status: { state: 'idle', app: 'claude-code' }, program_status_capable_at_ms: expect.any(Number) });
    await client.screenMatching(session, /fixture agent \(declaring\)/);

    await client.request('session.input', { session, text: 'fix the bug\r', origin: 'automation' });
    await client.frame((f) => statusOf(session)(f) && records(f).includes('root:working'));
    await client.frame((f) => statusOf(session)(f) && records(f).includes('root:done'));
  });

  test('a blocked agent carries its message until answered', async () => {
    const { session } = await client.create({ argv: [process.execPath, FIXTURE_AGENT, '--block'] });
    await client.frame((f) => statusOf(session)(f) && records(f).includes('root:idle'));
    await client.request('session.input', { session, text: 'rm -rf build\r', origin: 'automation' });
    const blocked = await client.frame((f) => statusOf(session)(f) && records(f).includes('root:blocked'));
    expect(blocked).toMatchObject({ declared_status: { state: 'blocked', kind: 'permission', message: 'approve Bash: rm -rf build' } });
    await client.request('session.input', { session, text: '1', origin: 'automation' });
    await client.frame((f) => statusOf(session)(f) && records(f).includes('root:done'));
  });

  test('OSC 133;A drops working and blocked records and keeps the rest', async () => {
    const { session } = await client.create({ argv: BASH });
    await client.request('session.input', {
      session,
      text: `printf '\\033]7501;state=working\\033\\\\\\033]7501;state=blocked:id=ask\\033\\\\\\033]7501;state=done:id=tests\\033\\\\\\033]7501;state=error:id=lint\\033\\\\'\r`,
      origin: 'automation',
    });
    await client.frame((f) => statusOf(session)(f) && records(f).length === 4);
    // Another frame could only come from the prompt mark, and only this one keeps done and error.
    // Counted before the input: the mark's frame can come in before the input's answer does.
    const count = client.frames.length;
    await client.request('session.input', { session, text: `printf '\\033]133;A\\007'\r`, origin: 'automation' });
    const after = await client.frame((f) => client.frames.indexOf(f) >= count && statusOf(session)(f));
    expect(records(after)).toEqual(['lint:error', 'tests:done']);
  });

  test('user input acknowledges done and error; automation never does', async () => {
    const { session } = await client.create({ argv: BASH });
    await client.request('session.input', {
      session,
      text: `printf '\\033]7501;state=done\\033\\\\\\033]7501;state=idle:id=x\\033\\\\'\r`,
      origin: 'automation',
    });
    await client.frame((f) => statusOf(session)(f) && records(f).length === 2);
    await client.request('session.input', { session, text: ' ', origin: 'automation' });
    expect((await client.request('agent.snapshot', { session })).sessions[0].records).toHaveLength(2);
    const count = client.frames.length;
    await client.request('session.input', { session, text: ' ', origin: 'user' });
    const after = await client.frame((f) => client.frames.indexOf(f) >= count && statusOf(session)(f));
    expect(records(after)).toEqual(['x:idle']);
  });

  test('a full reset (RIS) drops every record', async () => {
    const { session } = await client.create({ argv: BASH });
    await client.request('session.input', { session, text: `printf '\\033]7501;state=done\\033\\\\'\r`, origin: 'automation' });
    await client.frame((f) => statusOf(session)(f) && records(f).includes('root:done'));
    await client.request('session.input', { session, text: `printf '\\033c'\r`, origin: 'automation' });
    await client.frame((f) => statusOf(session)(f) && records(f).length === 0);
  });

  test('exit drains the last output, drops working and keeps done and error', async () => {
    const script = `printf '\\033]7501;state=working\\033\\\\\\033]7501;state=done:id=a\\033\\\\\\033]7501;state=error:id=b\\033\\\\last words\\n'; exit 3`;
    const { session } = await client.create({ argv: ['sh', '-c', script] });
    await client.frame(lifecycleOf(session, 'exited'));
    const manifest = await client.request('session.inspect', { session });
    expect(manifest).toMatchObject({ lifecycle: 'exited', exit_code: 3, final_output: 'last words' });
    expect(manifest.records.map((r) => `${r.id}:${r.state}`)).toEqual(['a:done', 'b:error']);
  });
});

describe('lifecycle', () => {
  test('stop ends a process tree, a child that ignores SIGTERM and SIGHUP included', async () => {
    const stubborn = `process.on('SIGTERM', () => {}); process.on('SIGHUP', () => {}); console.log('child=' + process.pid); setInterval(() => {}, 1000)`;
    const { session } = await client.create({ argv: ['sh', '-c', `${process.execPath} -e "${stubborn}" & wait`] });
    const text = await client.screenMatching(session, /child=\d+/);
    const child = Number(/child=(\d+)/.exec(text)![1]);
    expect(running(child)).toBe(true);
    await client.request('session.stop', { session });
    expect(running(child)).toBe(false);
    expect((await client.request('session.inspect', { session })).lifecycle).toBe('exited');
  });

  test('remove refuses a live session and forgets an exited one', async () => {
    const { session } = await client.create({ argv: ['sleep', '30'] });
    await expect(client.request('session.remove', { session })).rejects.toMatchObject({ code: -32023 });
    await client.request('session.stop', { session });
    await client.request('session.remove', { session });
    await client.frame((f) => f.type === 'removed' && f.session === session);
    await expect(client.request('session.inspect', { session })).rejects.toMatchObject({ code: -32020 });
  });

  test('restart runs the recorded launch again as the next generation', async () => {
    const { session } = await client.create({ argv: ['sh', '-c', 'echo run-$$'] });
    await client.frame(lifecycleOf(session, 'exited'));
    const restarted = await client.request('session.restart', { session });
    expect(restarted).toMatchObject({ session, generation: 2 });
    await client.screenMatching(session, /run-\d+/);
  });

  test("agent.event keeps serve's hook metadata for the current generation only; a restart starts without it", async () => {
    const { session } = await client.create({ argv: ['sh', '-c', 'sleep 0.2'] });
    const hook = { revision: 1, pid: 42, last_hook: { method: 'ai.stop', emitted_at_ms: Date.now() }, provider_session_id: 'p', transcript_path: null, prompt: null, notification_message: null, last_result: 'ok', active_tool_name: null };
    expect(await client.request('agent.event', { session, generation: 2, hook })).toEqual({ stored: false, hook_revision: 0 });
    expect(await client.request('agent.event', { session, generation: 1, hook })).toEqual({ stored: true, hook_revision: 1 });
    expect((await client.request('session.inspect', { session })).hook).toEqual(hook);
    const [first] = (await client.request('agent.snapshot', { session })).sessions;
    await client.frame(lifecycleOf(session, 'exited'));
    await client.request('session.restart', { session });
    const inspected = await client.request('session.inspect', { session });
    expect([inspected.generation, inspected.hook]).toEqual([2, null]);
    const [second] = (await client.request('agent.snapshot', { session })).sessions;
    expect(second.generation_started_at_ms).toBeGreaterThan(first.generation_started_at_ms);
    expect(second.generation_started_at_ms).toBe(inspected.created_at_ms);
  });

  test('a missing cwd is refused before anything starts', async () => {
    await expect(client.create({ argv: BASH, cwd: '/no/such/dir' })).rejects.toMatchObject({ code: -32602, data: { field: 'cwd' } });
  });

  test('a session that never sent anything has no records and no capability', async () => {
    const { session } = await client.create({ argv: ['sleep', '30'] });
    const [state] = (await client.request('agent.snapshot', { session })).sessions;
    expect(state).toMatchObject({ records: [], declared_status: null, program_status_capable_at_ms: null, lifecycle: 'live' });
  });
});

describe('which agent runs (the foreground scan)', () => {
  let bin: string;
  beforeAll(() => {
    bin = mkdtempSync(join(tmpdir(), 'pf-bin-'));
    symlinkSync(FIXTURE_AGENT, join(bin, 'claude'));
  });
  afterAll(() => rmSync(bin, { recursive: true, force: true }));
  const withBin = () => ({ PATH: `${bin}:${process.env.PATH}` });
  const observationOf = (session: string) => (f: HostFrame) => f.type === 'observation' && f.session === session;

  test('an executable named claude running the fixture agent is claude-code, and leaves when it exits', async () => {
    const { session } = await client.create({ argv: BASH, env: withBin() });
    await client.request('session.input', { session, text: 'claude\r', origin: 'automation' });
    const seen = await client.frame((f) => observationOf(session)(f) && f.type === 'observation' && f.observation?.id === 'claude-code');
    expect(seen).toMatchObject({ observation: { id: 'claude-code', pid_started_at_ms: expect.any(Number) }, last_runtime_id: 'claude-code' });
    const manifest = await client.request('session.inspect', { session });
    expect(manifest.runtime.current_observation?.id).toBe('claude-code');

    await client.frame((f) => statusOf(session)(f) && records(f).includes('root:idle'));
    const identified = client.frames.indexOf(seen);
    await client.request('session.input', { session, text: 'exit\r', origin: 'automation' });
    const gone = await client.frame((f) => client.frames.indexOf(f) > identified && observationOf(session)(f) && f.type === 'observation' && f.observation === null);
    expect(gone).toMatchObject({ last_runtime_id: 'claude-code' });
  });

  test('the agent leaving drops its working record, as an exit does', async () => {
    const { session } = await client.create({ argv: BASH, env: withBin() });
    await client.request('session.input', { session, text: 'claude --work-ms 60000\r', origin: 'automation' });
    await client.frame((f) => statusOf(session)(f) && records(f).includes('root:idle'));
    await client.request('session.input', { session, text: 'long task\r', origin: 'automation' });
    const working = await client.frame((f) => statusOf(session)(f) && records(f).includes('root:working'));
    await client.frame((f) => observationOf(session)(f) && f.type === 'observation' && f.observation?.id === 'claude-code');
    const agent = (await client.request('session.inspect', { session })).runtime.current_observation!;
    process.kill(agent.pid, 'SIGKILL');
    const after = await client.frame((f) => client.frames.indexOf(f) > client.frames.indexOf(working) && statusOf(session)(f) && records(f).length === 0);
    expect(after).toMatchObject({ declared_status: null });
  });

  test('an agent killed under a shell that goes on silently is seen gone, with no output after it to ask for a scan', async () => {
    const { session } = await client.create({ argv: ['sh', '-c', 'exec 2>/dev/null; claude; exec sleep 600'], env: withBin() });
    const seen = await client.frame((f): f is Extract<HostFrame, { type: 'observation' }> => observationOf(session)(f) && f.type === 'observation' && f.observation?.id === 'claude-code');
    // The agent waits at its prompt, and every output frame up to it has come: from here on the pane is silent.
    await client.screenMatching(session, /^>\s*$/m);
    const { output_generation } = await client.request('session.read', { session, lines: 1 });
    await client.frame((f) => f.type === 'output' && f.session === session && f.output_generation === output_generation);
    // Past the scan interval: no scan that output asked for is still to come (none reports it).
    await new Promise((resolve) => setTimeout(resolve, 3 * SCAN_INTERVAL_MS));
    const killedAt = client.frames.length;
    process.kill(seen.observation!.pid, 'SIGKILL');
    const gone = await client.frame((f) => observationOf(session)(f) && f.type === 'observation' && f.observation === null, 20_000, killedAt);
    expect(gone).toMatchObject({ last_runtime_id: 'claude-code' });
    expect(client.frames.slice(killedAt).filter((f) => f.type === 'output' && f.session === session)).toEqual([]);
  });

  /** The observation frame of a scan of `session` that found its program (`cmd`) in front: proof that one ran. */
  const scanned = (session: string, cmd: RegExp) =>
    client.frame((f): f is Extract<HostFrame, { type: 'observation' }> => observationOf(session)(f) && f.type === 'observation' && cmd.test(f.foreground_cmd));

  test("bash -c 'sleep 100' is no agent", async () => {
    const { session } = await client.create({ argv: ['bash', '-c', 'sleep 100'] });
    // A scan that has read this session's program (bash, or the sleep it execs) has judged it.
    const seen = await scanned(session, /sleep 100$/);
    expect(seen).toMatchObject({ observation: null, last_runtime_id: null });
    expect((await client.request('session.inspect', { session })).runtime).toEqual({ current_observation: null, last_runtime_id: null });
  });

  test('a quiet pane is not scanned: once its start is read, no scan waits on a timer', async () => {
    const { session } = await client.create({ argv: ['sleep', '100'] });
    await scanned(session, /^sleep 100$/); // the one scan a start asks for
    // A scan that met the exec half done asks for one more, once; after it, nothing is scheduled,
    // so only output, a mark, a report or an exit can ask for another.
    const counters = await until(async () => {
      const now = (await client.request('host.status', {})).counters;
      return now.scans_waiting === 0 ? now : null;
    }, 'no scan waiting on a timer');
    expect(counters.scans).toBeGreaterThanOrEqual(1);
  });
});
