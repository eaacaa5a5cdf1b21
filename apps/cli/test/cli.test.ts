import { StatusObject, validate } from '@paneflow/protocol';
import { encode } from '@paneflow/osc7501';
import { resolveEndpoints } from '@paneflow/instance';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { createConnection, createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { CLI, makeHome, scaled, screen, until, type Home } from '@paneflow/testing';

/**
 * A socket of the test's in front of serve's public socket (for PANEFLOW_SOCKET_PATH): it passes
 * every byte both ways and counts the answers serve gave, by method.
 */
async function socketRelay(home: Home) {
  const path = join(mkdtempSync(join(home.dir, 'relay-')), 'paneflow.sock');
  const answers = new Map<string, number>();
  const sockets = new Set<Socket>();
  const lines = (socket: Socket, each: (message: Record<string, unknown>) => void) => {
    let buffer = '';
    socket.on('data', (chunk) => {
      buffer += chunk.toString('utf8');
      for (let nl = buffer.indexOf('\n'); nl !== -1; nl = buffer.indexOf('\n')) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        try {
          each(JSON.parse(line));
        } catch {
          // not JSON: passed on all the same
        }
      }
    });
  };
  const server = createServer((client) => {
    const upstream = createConnection(resolveEndpoints(home.env).publicSocket);
    const asked: string[] = [];
    lines(client, (message) => typeof message.method === 'string' && 'id' in message && asked.push(message.method));
    // An answer carries an id, an event frame does not; one request per connection but a subscription.
    lines(upstream, (message) => {
      const method = 'id' in message ? asked.shift() : undefined;
      if (method) answers.set(method, (answers.get(method) ?? 0) + 1);
    });
    client.pipe(upstream);
    upstream.pipe(client);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(path, resolve));
  return {
    path,
    answered: (method: string) => answers.get(method) ?? 0,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

describe('without an instance', () => {
  let home: Home;
  beforeAll(() => (home = makeHome()));
  afterAll(() => home.cleanup());

  test('a verb that needs serve exits 1 with a hint', () => {
    const result = home.run(['ls']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/PANEFLOW_SOCKET_PATH/);
    expect(result.stderr).toMatch(/paneflow serve start/);
  });

  test.each([
    [['frobnicate'], /unknown verb 'frobnicate'; see `paneflow --help`/],
    [['ls', '--bogus'], /unknown flag '--bogus'/],
    [['read'], /needs <target>/],
    [['read', 'a', 'b'], /takes no argument 'b'/],
    [['wait', '--match', 'x'], /--pattern RE or --idle/],
    [['wait', '--idle'], /needs --match/],
    [['wait', '--match', 'x', '--idle', '--any', '--all'], /cannot go together/],
    [['send', 'x', 'y', '--broadcast', '--report-file', '/tmp/r'], /report-file cannot go with --broadcast/],
    [['read', 'x', '--lines', 'many'], /whole number/],
    [['host'], /needs one of: start, status, stop/],
    [['select', 'one'], /zero-based/],
    [['split', 'sideways'], /h, horizontal, v or vertical/],
    [['emit', 'sleeping'], /state/],
  ])('%j is a usage error: exit 2, nothing starts', (args, message) => {
    const result = home.run(args);
    expect(result.stderr).toMatch(message);
    expect(result.code).toBe(2);
    expect(home.run(['serve', 'status']).code).toBe(1);
  });

  test('--help on every verb, with an example', () => {
    const overview = home.run(['--help']);
    expect(overview.code).toBe(0);
    const verbs = [...overview.stdout.matchAll(/^ {2}(\S+(?: (?:start|status|stop|run))?) {2,}/gm)].map((m) => m[1]);
    expect(verbs.length).toBeGreaterThan(20);
    for (const verb of verbs) {
      const help = home.run([...verb.split(' '), '--help']);
      expect(help.code).toBe(0);
      expect(help.stdout).toMatch(/^usage: paneflow /);
      expect(help.stdout).toMatch(/\nexample: /);
    }
  });

  test('decode prints each sequence of stdin as JSON; strip removes them and keeps every other byte', () => {
    const input = `a${encode({ state: 'blocked', kind: 'permission', msg: 'Apply?' })}b\u00e9${encode({ state: 'clear' }, { terminator: 'bel' })}c`;
    const decoded = home.run(['decode'], { input });
    expect(decoded.stdout.trim().split('\n').map((l) => JSON.parse(l))).toEqual([
      { type: 'report', id: null, state: 'blocked', kind: 'permission', progress: null, app: null, title: null, msg: 'Apply?' },
      { type: 'clear', id: null },
    ]);
    expect(home.run(['strip'], { input }).stdout).toBe('ab\u00e9c');
  });

  test('emit outside a terminal says so', () => {
    const result = home.run(['emit', 'done']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/no controlling terminal/);
  });
});

describe('with an instance (scripting and orchestration on)', () => {
  let home: Home;
  beforeAll(() => {
    home = makeHome({ PANEFLOW_IPC_SCRIPTING: '1', PANEFLOW_IPC_ORCHESTRATION: '1' });
    // `new` starts the instance.
    const created = home.run(['new', '--name', 'main', '--cwd', home.dir]);
    expect(created.code).toBe(0);
    expect(created.json()).toMatchObject({ index: 0, name: 'main', surface_id: 1 });
  });
  afterAll(() => home.cleanup());

  const paneIds = () => home.run(['ls', '--scope', 'all']).json<{ surfaces: Array<{ surface_id: number }> }>().surfaces.map((s) => s.surface_id);
  /** A pane of the test's own beside pane 1 (its shell, or `command`), named `name`. */
  const split = async (name: string, { direction = 'h', ...more }: { direction?: 'h' | 'v'; cwd?: string; command?: string } = {}) =>
    (await home.rpc('surface.split', { direction, surface_id: 1, name, ...more })).surface_id;

  test('start adopts the running instance; host and serve report themselves', () => {
    expect(home.run(['start']).json()).toMatchObject({ serve: { adopted: true } });
    expect(home.run(['serve', 'status']).json()).toMatchObject({ protocol: 1, capabilities: { scripting: true, orchestration: true } });
    // One live session a pane: `main`'s alone, unless other tests of this instance made more.
    expect(home.run(['host', 'status']).json()).toMatchObject({ protocol: 1, sessions: { live: paneIds().length } });
  });

  test('ls, read, search and their aliases', async () => {
    expect(home.run(['send', '1', 'echo marker-$((6*7))', '--submit']).code).toBe(0);
    await screen(home, '1', /^marker-42$/m);
    const ls = home.run(['ls']).json<{ surfaces: Array<{ surface_id: number; name: string | null }> }>();
    expect(ls.surfaces[0]).toMatchObject({ surface_id: 1, workspace: 0, cwd: home.dir });
    expect(home.run(['list_panes']).json()).toEqual(ls);
    expect(home.run(['ls', '--human']).stdout).toMatch(/^ID\s+WS\s+NAME\s+CMD\s+CWD/);
    const fenced = home.run(['read', '1', '--lines', '5']).stdout;
    expect(fenced).toMatch(/^<untrusted_terminal_output source="surface.read"/);
    expect(home.run(['read_pane', '1', '--raw']).stdout).toMatch(/^marker-42$/m);
    expect(home.run(['read', '1', '--json', '--raw']).json()).toMatchObject({ eof: true, total_lines: expect.any(Number) });
    // The echo of the command matches too: that is the pane's text.
    expect(home.run(['search', '1', 'MARKER']).json()).toMatchObject({ matches: expect.arrayContaining([expect.objectContaining({ text: 'marker-42' })]), truncated: false });
    expect(home.run(['search_pane', '1', 'marker', '--human']).stdout).toMatch(/^line \d+: marker-42$/m);
  });

  test('selectors: id, name (exact, any case, unique prefix), cmdline:, cwd:; none or several exit 3', async () => {
    // A directory under HOME, for `~`, and a symbolic link to it, for canonicalisation.
    const project = join(home.env.HOME!, 'proj');
    mkdirSync(project);
    symlinkSync(project, join(home.dir, 'proj-link'));
    // Named through serve (the CLI has no rename verb). `Build` is also a prefix of `build-two`.
    const build = await home.rpc('surface.split', { direction: 'h', surface_id: 1, name: 'Build', cwd: project, command: 'sleep 4242' });
    const two = await home.rpc('surface.split', { direction: 'v', surface_id: 1, name: 'build-two' });
    const resolved = (selector: string) => {
      const result = home.run(['status', selector, '--json']);
      return result.code === 0 ? result.json<{ surface_id: number }>().surface_id : `exit ${result.code}: ${result.stderr.trim()}`;
    };
    expect(resolved(String(build.surface_id))).toBe(build.surface_id);
    expect(resolved('Build')).toBe(build.surface_id); // exact, before the prefix stage that would match both
    expect(resolved('build')).toBe(build.surface_id); // any case, before the prefix stage
    expect(resolved('BUILD-T')).toBe(two.surface_id); // a unique prefix, in any case
    expect(resolved('cmdline:sleep 4242')).toBe(build.surface_id);
    expect(resolved('cwd:~/proj')).toBe(build.surface_id);
    expect(resolved(`cwd:${join(home.dir, 'proj-link')}/`)).toBe(build.surface_id);
    expect(home.run(['focus', 'build-t']).json()).toMatchObject({ surface_id: two.surface_id });

    const ambiguous = home.run(['status', 'bu']);
    expect(ambiguous.code).toBe(3);
    expect(ambiguous.stderr).toContain(`'bu' is a prefix of 2 panes (${build.surface_id}, ${two.surface_id}); name one`);
    expect(home.run(['status', 'nothing-like-this']).code).toBe(3);
    expect(home.run(['status', `cwd:${home.dir}`]).code).toBe(3); // several panes share it
    expect(home.run(['status', 'cmdline:no-such-program']).code).toBe(3);
    // An id is asked of surface.status at once (no surface.resolve first): its not-found reads as resolve's.
    for (const verb of ['status', 'read']) expect(home.run([verb, '999999'])).toMatchObject({ code: 3, stderr: 'paneflow: no pane with surface id 999999\n' });
  });

  test('a full turn: send --submit is confirmed by state, status and ps follow it, wait --idle returns at its end', async () => {
    const up = home.run(['split', 'h', '--target', '1']);
    expect(up.code).toBe(0);
    const { surface_id } = up.json<{ surface_id: number }>();
    // A login shell sets its own PATH: the fixture's `claude` is named by its path.
    expect(home.run(['send', String(surface_id), `${home.dir}/bin/claude --block`, '--submit']).json()).toMatchObject({ agent_target: false, submit_mode: 'inline_cr' });
    await screen(home, String(surface_id), /fixture agent \(declaring\)/);
    for (let i = 0; ; i++) {
      const s = home.run(['status', String(surface_id), '--json']).json<{ tool: string | null; reason: string }>();
      if (s.tool === 'claude' && s.reason === 'declared') break;
      if (i > 100) throw new Error('the agent was never identified');
      await new Promise((r) => setTimeout(r, 100));
    }
    const sent = home.run(['send', String(surface_id), 'ship it', '--submit']);
    expect(sent.code).toBe(0);
    expect(sent.json()).toMatchObject({ sent: true, submitted: true, agent_target: true, paste: true, submit_mode: 'deferred_paste_cr', started: true, start_reason: 'state_changed' });

    // blocked now: a second submit would answer the question
    for (let i = 0; ; i++) {
      if (home.run(['status', String(surface_id), '--json']).json<{ state: string }>().state === 'waiting_for_input') break;
      if (i > 100) throw new Error('never blocked');
      await new Promise((r) => setTimeout(r, 100));
    }
    const busy = home.run(['send', String(surface_id), 'again', '--submit']);
    expect(busy.code).toBe(1);
    expect(busy.stderr).toMatch(/agent_busy/);
    const status = home.run(['status', String(surface_id), '--json']).json();
    expect(validate(StatusObject, status)).toBeNull();
    expect(status).toMatchObject({ tool: 'claude', runtime_id: 'claude-code', state: 'waiting_for_input', message: 'approve Bash: ship it' });
    expect(home.run(['status', String(surface_id)]).stdout).toMatch(/claude waiting_for_input \(declared\) · approve Bash: ship it/);
    const ps = home.run(['ps', '--json']).json<{ agents: Array<{ surface_id: number }> }>();
    expect(ps.agents.map((a) => a.surface_id)).toContain(surface_id);
    expect(home.run(['ps']).stdout).toMatch(/waiting_for_input/);

    // Not busy (waiting for an answer): wait --idle returns at once.
    expect(home.run(['wait', '--match', String(surface_id), '--idle', '--timeout', '10']).json()).toMatchObject({ surface_id, matched: 'idle', state: 'waiting_for_input' });
    // A key would answer it: refused unless forced. Answered: busy again, and wait --idle returns when the turn ends.
    expect(home.run(['key', String(surface_id), '1']).code).toBe(1);
    expect(home.run(['key', String(surface_id), '1', '--force']).json()).toEqual({ sent: true });
    for (let i = 0; home.run(['status', String(surface_id), '--json']).json<{ state: string }>().state === 'waiting_for_input'; i++) {
      if (i > 100) throw new Error('the answer was never taken');
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(home.run(['wait', '--match', String(surface_id), '--idle', '--timeout', '30']).json()).toMatchObject({ surface_id, matched: 'idle', state: 'finished' });

    const sessions = home.run(['sessions', '--json']).json<{ sessions: Array<{ session: string; surface_id: number; unread: boolean }> }>();
    const row = sessions.sessions.find((s) => s.surface_id === surface_id)!;
    expect(row.unread).toBe(true);
    expect(home.run(['sessions', 'ack', row.session]).json()).toEqual({ acked: [row.session] });
    expect(home.run(['status', String(surface_id), '--json']).json()).toMatchObject({ unread: false });
  }, scaled(90_000));

  test('send --submit that starts no turn: started false, not_started, exit 1', async () => {
    const agent = await split('no-turn', { command: 'claude' });
    await until(() => home.run(['status', String(agent), '--json']).json<{ reason: string }>().reason === 'declared' || null, 'the agent declares');
    // The fixture agent takes a blank line as nothing to do: it declares nothing.
    const result = home.run(['send', String(agent), ' ', '--submit']);
    expect(result.json()).toMatchObject({ submitted: true, agent_target: true, submit_mode: 'deferred_paste_cr', started: false, start_reason: 'not_started' });
    expect(result.code).toBe(1);
  });

  test('wait --pattern sees output that comes after it started', async () => {
    // Between the wait and serve, a socket that tells when the wait's read of the pane is answered:
    // only then is the line printed, so the wait's first look cannot have seen it.
    const relay = await socketRelay(home);
    try {
      home.env.PANEFLOW_SOCKET_PATH = relay.path;
      const waiting = home.start(['wait', '--match', '1', '--pattern', '^later-42$', '--timeout', '40']);
      delete home.env.PANEFLOW_SOCKET_PATH;
      await until(() => relay.answered('surface.read') > 0, 'the wait read the pane once');
      expect(home.run(['send', '1', 'echo later-$((40+2))', '--submit']).code).toBe(0);
      expect(await waiting.exited).toBe(0);
      expect(JSON.parse(waiting.lines.join('\n'))).toMatchObject({ surface_id: 1, matched: 'pattern', line: 'later-42' });
      expect(relay.answered('surface.read')).toBeGreaterThan(1);
    } finally {
      delete home.env.PANEFLOW_SOCKET_PATH;
      await relay.close();
    }
  }, scaled(60_000));

  test('wait --pattern sees text already on screen; a wait that never matches exits 4', async () => {
    expect(home.run(['send', '1', 'echo onscreen-$((6*7))', '--submit']).code).toBe(0);
    await screen(home, '1', /^onscreen-42$/m);
    expect(home.run(['wait', '--match', '1', '--pattern', '^onscreen-42$', '--timeout', '10']).json()).toMatchObject({ surface_id: 1, matched: 'pattern', line: 'onscreen-42' });
    const timedOut = home.run(['wait', '--match', '1', '--pattern', '^never there$', '--timeout', '1']);
    expect(timedOut.code).toBe(4);
  });

  test('wait --idle on a shell returns once output has been quiet for --for ms', () => {
    const result = home.run(['wait', '--match', '1', '--idle', '--for', '300', '--timeout', '10']);
    expect(result.code).toBe(0);
    expect(result.json()).toMatchObject({ surface_id: 1, matched: 'idle', state: 'idle' });
  });

  test('send --submit to an agent that declares nothing answers started: null, no_signal', async () => {
    const { surface_id } = home.run(['split', 'v', '--target', '1']).json<{ surface_id: number }>();
    home.run(['send', String(surface_id), `${home.dir}/bin/claude --no-query`, '--submit']);
    for (let i = 0; ; i++) {
      const s = home.run(['status', String(surface_id), '--json']).json<{ reason: string }>();
      if (s.reason === 'no_signal') break;
      if (i > 100) throw new Error(`never no_signal: ${JSON.stringify(s)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(home.run(['send', String(surface_id), 'hello', '--submit']).json()).toMatchObject({ agent_target: true, started: null, start_reason: 'no_signal' });
  }, scaled(60_000));

  test('--report-file appends the report protocol', async () => {
    // A shell of its own: the text stays on its command line, unsubmitted.
    const shell = await split('report-shell');
    try {
      // The block holds newlines, so a shell gets it as a paste.
      const result = home.run(['send', String(shell), 'summarise', '--paste', '--report-file', 'out/report.md']).json<Record<string, string>>();
      expect(result.report_file).toBe(join(process.cwd(), 'out/report.md'));
      expect(result.report_sentinel).toBe(`REPORT_DONE ${result.report_file}`);
    } finally {
      await home.rpc('surface.close', { surface_id: shell });
    }
  });

  test('--broadcast sends to every match', async () => {
    // Two shells of its own in a directory of their own: the text stays on their command lines, unsubmitted.
    const dir = mkdtempSync(join(home.dir, 'broadcast-'));
    const shells = [await split('cast-one', { cwd: dir }), await split('cast-two', { cwd: dir })];
    try {
      const result = home.run(['send', `cwd:${dir}`, 'true', '--broadcast']).json<{ sent: number[]; failed: number[] }>();
      expect(result.sent.length).toBeGreaterThan(1);
      expect([...result.sent].sort((a, b) => a - b)).toEqual(shells);
      expect(result.failed).toEqual([]);
    } finally {
      for (const surface_id of shells) await home.rpc('surface.close', { surface_id });
    }
  });

  test('--broadcast --submit keeps the busy guard per target: a busy agent is skipped (failed, its prompt unanswered), the others are sent, exit 1', async () => {
    const ids: number[] = [];
    for (const name of ['bc-one', 'bc-two']) ids.push((await home.rpc('surface.split', { direction: 'v', surface_id: 1, name, command: 'claude --work-ms 100' })).surface_id);
    const [asking, free] = ids;
    const state = (id: number) => home.run(['status', String(id), '--json']).json<{ state: string; reason: string }>();
    await until(() => ids.every((id) => state(id).reason === 'declared') || null, 'both agents declare');
    expect(home.run(['send', String(asking), 'deploy it permission', '--submit']).code).toBe(0);
    await until(() => state(asking).state === 'waiting_for_input' || null, 'the first agent asks');

    // `1` submitted would answer its question.
    const result = home.run(['send', 'bc-', '1', '--broadcast', '--submit']);
    expect(result.json()).toEqual({ sent: [free], failed: [asking], submitted: [free] });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`paneflow: surface ${asking}: agent_busy: surface ${asking} is waiting_for_input`);
    await until(() => state(free).state !== 'idle' || null, 'the free agent took the turn');
    expect(state(asking).state).toBe('waiting_for_input');
    expect(home.run(['read', String(asking), '--raw']).stdout).not.toMatch(/^allowed$/m);

    // Without --submit too: the menu takes a digit at once, so a plain `1` would answer it; so would a key.
    const plain = home.run(['send', 'bc-', '1', '--broadcast']);
    expect(plain.json()).toEqual({ sent: [free], failed: [asking], submitted: [] });
    expect(plain.stderr).toContain(`paneflow: surface ${asking}: agent_busy: surface ${asking} is waiting_for_input; text typed now would answer its prompt`);
    const key = home.run(['key', String(asking), '1']);
    expect([key.code, key.stderr]).toEqual([1, expect.stringContaining('agent_busy: surface')]);
    expect(state(asking).state).toBe('waiting_for_input');
    expect(home.run(['read', String(asking), '--raw']).stdout).not.toMatch(/^allowed$/m);
    // --force is the person's say-so.
    expect(home.run(['key', String(asking), '1', '--force']).code).toBe(0);
    await screen(home, String(asking), /^allowed$/m);
  }, scaled(60_000));

  test('watch prints the subscription first, then events, and exits 0 on Ctrl-C', async () => {
    const watch = home.start(['watch', '--surface', '1', '--type', 'surface_changed']);
    const first = JSON.parse(await watch.line(() => true));
    expect(first).toEqual({ type: 'subscribed', surfaces: [1], types: ['surface_changed'] });
    home.run(['send', '1', 'echo watched', '--submit']);
    expect(JSON.parse(await watch.line((l) => JSON.parse(l).type === 'surface_changed'))).toMatchObject({ type: 'surface_changed', surface_id: 1 });
    watch.child.kill('SIGINT');
    expect(await watch.exited).toBe(0);
  });

  test('emit in a pane reaches that pane, as the agent declaring it', async () => {
    // A shell of its own: what it declares stays with it, and goes when it closes.
    const shell = await split('emitter');
    try {
      home.run(['send', String(shell), `${process.execPath} ${CLI} emit blocked --kind permission --msg 'Apply?' --app deploy`, '--submit']);
      for (let i = 0; ; i++) {
        const status = home.run(['status', String(shell), '--json']).json<{ declared: unknown }>();
        if (status.declared) {
          expect(status.declared).toEqual({ state: 'blocked', kind: 'permission', progress: null, id: null, app: 'deploy', title: null, message: 'Apply?' });
          break;
        }
        if (i > 100) throw new Error('the emitted report never arrived');
        await new Promise((r) => setTimeout(r, 100));
      }
    } finally {
      await home.rpc('surface.close', { surface_id: shell });
    }
  });

  test('close: an idle shell pane closes with its process; a shell running a program, or an agent waiting, is refused (exit 1) until --force', async () => {
    const idle = (await home.rpc('surface.split', { direction: 'h', surface_id: 1, name: 'close-idle' })).surface_id;
    home.run(['send', String(idle), 'echo shell-pid-$$', '--submit']);
    const pid = Number(/^shell-pid-(\d+)$/m.exec(await screen(home, String(idle), /^shell-pid-\d+$/m))![1]);
    expect(existsSync(`/proc/${pid}`)).toBe(true);
    const closed = home.run(['close', 'close-idle']);
    expect([closed.code, closed.stderr]).toEqual([0, '']);
    expect(closed.json()).toEqual({ closed: idle, workspace_closed: false, worktrees: [] });
    expect(paneIds()).not.toContain(idle);
    expect(existsSync(`/proc/${pid}`)).toBe(false);
    expect(home.run(['close', 'close-idle']).code).toBe(3);
    expect(home.run(['close']).code).toBe(2);

    const running = (await home.rpc('surface.split', { direction: 'h', surface_id: 1, name: 'close-running' })).surface_id;
    home.run(['send', String(running), 'sleep 4343', '--submit']);
    await until(() => home.run(['ls']).stdout.includes('"sleep 4343"') || null, 'the sleep runs in front');
    const refused = home.run(['close', 'close-running']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`surface ${running} (close-running): 'sleep 4343' is running in it`);
    expect(refused.stderr).toContain('--force');
    expect(paneIds()).toContain(running);
    expect(home.run(['close', 'close-running', '--force']).code).toBe(0);
    expect(paneIds()).not.toContain(running);

    const asking = (await home.rpc('surface.split', { direction: 'v', surface_id: 1, name: 'close-asking', command: 'claude --work-ms 100' })).surface_id;
    const state = () => home.run(['status', String(asking), '--json']).json<{ state: string; reason: string }>();
    await until(() => state().reason === 'declared' || null, 'the agent declares');
    expect(home.run(['send', String(asking), 'deploy it permission', '--submit']).code).toBe(0);
    await until(() => state().state === 'waiting_for_input' || null, 'the agent asks');
    const waiting = home.run(['close', 'close-asking']);
    expect(waiting.code).toBe(1);
    expect(waiting.stderr).toContain(`surface ${asking} (close-asking): its agent is waiting_for_input`);
    expect(paneIds()).toContain(asking);
    expect(home.run(['close', 'close-asking', '--yes']).code).toBe(0);
    expect(paneIds()).not.toContain(asking);
  }, scaled(60_000));

  test('close --workspace closes every pane by the same rules: refused while one agent thinks, then --force closes them all', async () => {
    const made = home.run(['new', '--name', 'closing', '--cwd', home.dir]).json<{ index: number; surface_id: number }>();
    const thinker = (await home.rpc('surface.split', { direction: 'h', surface_id: made.surface_id, name: 'close-thinker', command: 'claude --work-ms 600000' })).surface_id;
    const state = () => home.run(['status', String(thinker), '--json']).json<{ state: string; reason: string }>();
    await until(() => state().reason === 'declared' || null, 'the agent declares');
    expect(home.run(['send', String(thinker), 'think long', '--submit']).code).toBe(0);
    await until(() => state().state === 'thinking' || null, 'the agent thinks');
    const refused = home.run(['close', '--workspace', 'closing']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`surface ${thinker} (close-thinker): its agent is thinking`);
    expect(paneIds()).toEqual(expect.arrayContaining([made.surface_id, thinker]));
    expect(home.run(['close', '--workspace', 'no-such-workspace']).code).toBe(3);
    // The new workspace is the active one: the default.
    const closed = home.run(['close', '--workspace', '--force']);
    expect(closed.code).toBe(0);
    expect(closed.json()).toEqual({ closed: made.index, surfaces: [made.surface_id, thinker], worktrees: [] });
    expect(paneIds()).not.toContain(thinker);
    expect(paneIds()).not.toContain(made.surface_id);
    const { workspaces } = await home.rpc('workspace.list', {});
    expect(workspaces.map((w) => w.name)).not.toContain('closing');
  }, scaled(60_000));

  test('select, and a spec file that is not there is a usage error', () => {
    expect(home.run(['select', '0']).json()).toMatchObject({ index: 0 });
    expect(home.run(['select', '99']).code).toBe(1);
    const up = home.run(['up', 'team.toml']);
    expect(up.code).toBe(2);
    expect(up.stderr).toMatch(/cannot read team\.toml: ENOENT/);
  });

  describe('an instance of its own, to stop', () => {
    // Stopping ends the instance: not the one the other tests share.
    let stopping: Home;
    beforeAll(() => {
      stopping = makeHome({ PANEFLOW_IPC_SCRIPTING: '1', PANEFLOW_IPC_ORCHESTRATION: '1' });
      expect(stopping.run(['new', '--name', 'main', '--cwd', stopping.dir]).code).toBe(0);
    });
    afterAll(() => stopping.cleanup());

    test('stop is refused while sessions live, then --force stops everything', () => {
      const refused = stopping.run(['stop']);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/session\(s\) live/);
      expect(stopping.run(['stop', '--force']).code).toBe(0);
      expect(stopping.run(['serve', 'status']).code).toBe(1);
      expect(stopping.run(['host', 'status']).code).toBe(1);
    });
  });
});

/** A flow that submits twice, at its two call sites: a pane step's prompt, and a send step to that pane. */
const SUBMITTING_FLOW = `
name = "gated"
[defaults]
timeout_secs = 30
[[step]]
id = "ask"
pane = { name = "gated-agent", agent = "claude", prompt = "print FIRST-42 on a line of its own" }
submit = true
ready = { pattern = '^FIRST-42$' }
[[step]]
id = "again"
needs = ["ask"]
send = { target = "ask", text = "print SECOND-42 on a line of its own", submit = true }
ready = { pattern = '^SECOND-42$' }
`;

/** A flow with a send step that does not submit (`surface.send_text` all the same). */
const SENDING_FLOW = `
[[step]]
id = "sh"
pane = { name = "sending-shell", command = "PS1= exec bash --norc --noprofile" }
[[step]]
id = "type"
needs = ["sh"]
send = { target = "sh", text = "echo typed" }
`;

describe('with scripting only', () => {
  let home: Home;
  let own: number;
  beforeAll(() => {
    home = makeHome({ PANEFLOW_IPC_SCRIPTING: '1' });
    own = home.run(['new', '--name', 'own', '--cwd', home.dir]).json<{ surface_id: number }>().surface_id;
  });
  afterAll(() => home.cleanup());

  test('send within the caller\'s workspace works; --scope all and a pane of another workspace are refused (exit 1)', async () => {
    // The caller is in `own`'s workspace (as a program in one of its panes is), whichever is in front.
    const { id: ownWorkspace } = (await home.rpc('workspace.list', {})).workspaces.find((w) => w.name === 'own')!;
    const caller = { env: { PANEFLOW_WORKSPACE_ID: ownWorkspace } };
    expect(home.run(['send', String(own), 'echo scripted-$((40+2))', '--submit'], caller).code).toBe(0);
    await screen(home, String(own), /^scripted-42$/m);
    const all = home.run(['send', String(own), 'true', '--scope', 'all'], caller);
    expect(all.code).toBe(1);
    expect(all.stderr).toMatch(/requires PANEFLOW_IPC_ORCHESTRATION=1/);
    const other = home.run(['new', '--name', 'other', '--cwd', home.dir]).json<{ surface_id: number; id: string }>();
    const outside = home.run(['send', String(other.surface_id), 'true'], caller);
    expect(outside.code).toBe(1);
    expect(outside.stderr).toMatch(/outside the caller's workspace; requires PANEFLOW_IPC_ORCHESTRATION=1/);
  });

  test('a flow that submits runs to the end: its sends stay in its own workspace', () => {
    const file = join(home.dir, 'gated.toml');
    writeFileSync(file, SUBMITTING_FLOW);
    const result = home.run(['flow', 'run', file, '--json']);
    expect(result.stderr).not.toMatch(/failed/);
    expect(result.json()).toMatchObject({ ok: true, steps: [{ id: 'ask', status: 'done' }, { id: 'again', status: 'done' }] });
    expect(result.code).toBe(0);
  }, scaled(90_000));
});

describe('with orchestration only', () => {
  let home: Home;
  beforeAll(() => {
    home = makeHome({ PANEFLOW_IPC_ORCHESTRATION: '1' });
    expect(home.run(['new', '--name', 'own', '--cwd', home.dir]).code).toBe(0);
  });
  afterAll(() => home.cleanup());

  test('send is refused with the variable to set, in any scope', () => {
    for (const scope of ['workspace', 'all']) {
      const send = home.run(['send', '1', 'true', '--scope', scope]);
      expect(send.code).toBe(1);
      expect(send.stderr).toMatch(/relaunch with PANEFLOW_IPC_SCRIPTING=1/);
    }
  });

  test('a flow that submits, or sends, is refused before it makes anything; one of panes alone runs', async () => {
    const workspaces = async () => (await home.rpc('workspace.list', {})).workspaces.length;
    const before = await workspaces();
    for (const [name, flow] of [['gated.toml', SUBMITTING_FLOW], ['sending.toml', SENDING_FLOW]]) {
      const file = join(home.dir, name);
      writeFileSync(file, flow);
      const refused = home.run(['flow', 'run', file]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/PANEFLOW_IPC_SCRIPTING=1/);
      expect(refused.stderr).not.toMatch(/^flow: /m);
    }
    expect(await workspaces()).toBe(before);
    const panes = join(home.dir, 'panes.toml');
    writeFileSync(panes, '[[step]]\nid = "sh"\npane = { name = "orchestrated", command = "echo orchestrated-$((40+2)); exec sleep 600" }\nready = { pattern = "^orchestrated-42$", timeout_secs = 30 }\n');
    const ran = home.run(['flow', 'run', panes, '--json']);
    expect(ran.json()).toMatchObject({ ok: true, steps: [{ id: 'sh', status: 'done' }] });
    expect(ran.code).toBe(0);
  }, scaled(60_000));
});

describe('with the gates closed', () => {
  let home: Home;
  beforeAll(() => {
    home = makeHome();
    expect(home.run(['new', '--cwd', home.dir]).code).toBe(0);
  });
  afterAll(() => home.cleanup());

  test('send and key exit 1 with the variable to set; a broadcast writes nothing', () => {
    const send = home.run(['send', '1', 'ls', '--submit']);
    expect(send.code).toBe(1);
    expect(send.stderr).toMatch(/relaunch with PANEFLOW_IPC_SCRIPTING=1/);
    expect(home.run(['key', '1', 'up']).code).toBe(1);
    const broadcast = home.run(['send', '1', 'ls', '--broadcast']);
    expect(broadcast.code).toBe(1);
    expect(broadcast.stdout).toBe('');
  });

  test('up and flow run are refused before any side effect: no worktree, no branch, no setup, no workspace', async () => {
    const repo = join(home.dir, 'repo');
    mkdirSync(repo);
    writeFileSync(join(repo, 'README'), 'r\n');
    const git = (...args: string[]) => execFileSync('git', ['-C', repo, '-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], { encoding: 'utf8' });
    git('init', '-q', '-b', 'main');
    git('add', '.');
    git('commit', '-q', '-m', 'initial');
    const marker = join(home.dir, 'setup-ran');
    const pane = `cwd = "."\nworktree = "feat/gated"\nsetup = "touch '${marker}'"\ncommand = "sleep 600"\n`;
    writeFileSync(join(repo, 'ws.toml'), `[[panes]]\n${pane}`);
    writeFileSync(join(repo, 'flow.toml'), `[[step]]\nid = "a"\npane = { ${pane.trim().split('\n').join(', ')} }\n`);
    const before = (await home.rpc('workspace.list', {})).workspaces.length;
    for (const args of [['up', join(repo, 'ws.toml')], ['flow', 'run', join(repo, 'flow.toml')]]) {
      const result = home.run(args);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/workspace\.up disabled: relaunch with PANEFLOW_IPC_ORCHESTRATION=1/);
      expect(existsSync(`${repo}.worktrees`)).toBe(false);
      expect(git('branch', '--list', 'feat/gated')).toBe('');
      expect(git('worktree', 'list').trim().split('\n')).toHaveLength(1);
      expect(existsSync(marker)).toBe(false);
    }
    expect((await home.rpc('workspace.list', {})).workspaces.length).toBe(before);
  });

  test('reads still work', () => {
    expect(home.run(['ls']).code).toBe(0);
    expect(home.run(['read', '1']).code).toBe(0);
  });
});
