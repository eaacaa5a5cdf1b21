// `paneflow rpc --stdio`, the far end of a machine link (issue 32): the real bundle on pipes, as
// ssh runs it, against a real instance it starts itself.
import { CLI, makeHome, refuseWrites, scaled, until, type Home } from '@paneflow/testing';
import { ErrorCode, MAX_REQUEST_LINE_BYTES } from '@paneflow/protocol';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createConnection } from 'node:net';
import { resolveEndpoints } from '@paneflow/instance';
import { join } from 'node:path';
import { mkdirSync } from 'node:fs';

jest.setTimeout(scaled(60_000));

type Line = { jsonrpc?: string; id?: unknown; method?: string; params?: Record<string, unknown>; result?: Record<string, unknown>; error?: { code: number; message: string; data?: Record<string, unknown> } };

/** A bridge on pipes: what it wrote, line by line, parsed (a line that is not JSON fails the test). */
function bridge(home: Home) {
  const process_ = home.start(['rpc', '--stdio']);
  const parsed = () => process_.lines.map((line) => JSON.parse(line) as Line);
  return {
    child: process_.child,
    exited: process_.exited,
    parsed,
    get stderr() {
      return process_.stderr;
    },
    send(...messages: unknown[]) {
      process_.child.stdin.write(messages.map((m) => (typeof m === 'string' ? m : JSON.stringify(m)) + '\n').join(''));
    },
    /** The first line `test` accepts, with its index among the lines. */
    async line(test: (line: Line) => boolean, what: string): Promise<Line & { index: number }> {
      return until(() => {
        const index = parsed().findIndex(test);
        return index === -1 ? null : { ...parsed()[index], index };
      }, `${what}; the bridge wrote ${JSON.stringify(process_.lines.slice(-4))}, stderr ${process_.stderr}`);
    },
    answer(id: unknown) {
      return this.line((l) => l.id === id && ('result' in l || 'error' in l), `an answer to ${JSON.stringify(id)}`);
    },
  };
}
type Bridge = ReturnType<typeof bridge>;

const request = (id: unknown, method: string, params: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', id, method, params });
const framesOf = (b: Bridge, stream: unknown) => b.parsed().filter((l) => l.method === 'rpc.frame' && l.params?.stream === stream);

/** serve's raw answer to one request line on the public socket, as any client of it gets it. */
function rawAnswer(home: Home, line: object): Promise<Line> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(resolveEndpoints(home.env).publicSocket);
    let text = '';
    socket.on('data', (chunk) => (text += chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(JSON.parse(text.split('\n')[0])));
    socket.write(JSON.stringify(line) + '\n');
  });
}

const subscribers = async (home: Home) => (await home.rpc('system.counters', {})).counters.subscribers;

describe('against an instance with the gates closed', () => {
  let home: Home;
  let b: Bridge;
  beforeAll(() => {
    // No PANEFLOW_IPC_SCRIPTING: the instance the bridge starts refuses writes.
    home = makeHome();
  });
  afterAll(() => home.cleanup());
  afterEach(async () => {
    b?.child.stdin.end();
    await b?.exited;
  });
  /** A bridge that has said hello: the instance runs. */
  async function ready(): Promise<Bridge> {
    b = bridge(home);
    await b.line((l) => l.method === 'rpc.hello', 'the hello');
    return b;
  }

  test('starts the instance, says hello before anything else, and answers requests in flight at once with their ids', async () => {
    b = bridge(home);
    b.send(request(1, 'system.identify'), request('two', 'fleet.list'), request(3, 'surface.list', { scope: 'all' }));
    const answers = await Promise.all([b.answer(1), b.answer('two'), b.answer(3)]);
    const [hello] = b.parsed();
    expect(hello).toEqual({ jsonrpc: '2.0', method: 'rpc.hello', params: { name: 'paneflow-rpc', version: expect.stringMatching(/^[0-9a-f]{12}$/), protocol: 1 } });
    expect(answers.map((a) => a.index).every((i) => i > 0)).toBe(true);
    expect(answers[0].result).toEqual(await home.rpc('system.identify', {}));
    expect(answers[1].result).toMatchObject({ agents: [] });
    expect(answers[2].result).toEqual({ surfaces: [] });
    expect(b.stderr).toBe('');
  });

  test('a bad line gets an error and the bridge goes on: not JSON, no id, a batch, a line over the limit', async () => {
    b = bridge(home);
    b.send('not json', { jsonrpc: '2.0', method: 'system.ping' }, [request(9, 'system.ping')], { id: 4, method: 'system.ping' });
    b.send('x'.repeat(MAX_REQUEST_LINE_BYTES + 10), request(5, 'system.ping'));
    const pong = await b.answer(5);
    expect(pong.result).toEqual({ pong: true });
    const errors = b.parsed().filter((l) => l.error);
    expect(errors.map((l) => [l.id, l.error!.code])).toEqual([
      [null, ErrorCode.ParseError],
      [null, ErrorCode.InvalidRequest],
      [null, ErrorCode.InvalidRequest],
      [4, ErrorCode.InvalidRequest],
      [null, ErrorCode.InvalidRequest],
    ]);
    expect(errors.at(-1)!.error!.message).toContain(`over ${MAX_REQUEST_LINE_BYTES} bytes`);
  });

  test("a write the gate refuses comes back as serve's own error, untouched", async () => {
    b = await ready();
    const { surface_id } = await home.rpc('workspace.create', { name: 'gated', cwd: home.dir });
    const send = request(7, 'surface.send_text', { surface_id, text: 'echo never' });
    b.send(send);
    const refused = await b.answer(7);
    expect(refused.error).toEqual((await rawAnswer(home, send)).error);
    expect(refused.error).toMatchObject({ code: ErrorCode.MethodNotFound, data: { reason: 'gate_closed' } });
  });

  test("rpc.host: a terminal's host methods to this user's host (keys in order, output streamed), nothing else", async () => {
    b = await ready();
    const { surface_id } = await home.rpc('workspace.create', { name: 'terminal', cwd: home.dir });
    const { session } = (await home.rpc('surface.list', { scope: 'all' })).surfaces.find((s) => s.surface_id === surface_id)!;
    const attached = request('at', 'rpc.host', { method: 'session.attach', params: { session, scrollback: 0 } });
    b.send(attached);
    const begin = (await b.answer('at')).result as { output_offset: number };
    b.send(request('out', 'rpc.host', { method: 'session.output', params: { session, offset: begin.output_offset, follow: true } }));
    await b.answer('out');
    // The gate that closes serve's writes is serve's: a terminal's keyboard is the host's, as a face's is.
    const keys = 'echo rpc-host-$((6*7))\r'.split('');
    b.send(...keys.map((key, i) => request(`k${i}`, 'rpc.host', { method: 'session.input', params: { session, text: key, origin: 'user' } })));
    await until(() => {
      const text = framesOf(b, 'out').map((l) => (l.params!.frame as { type: string; data?: string }).data ?? '').map((data) => Buffer.from(data, 'base64').toString('utf8')).join('');
      return text.includes('rpc-host-42') || null;
    }, 'the typed command echoed and run, its output streamed');
    b.send(request('kill', 'rpc.host', { method: 'session.kill', params: { session } }), request('bad', 'rpc.host', { method: 'session.input' }));
    expect((await b.answer('kill')).error).toMatchObject({ code: ErrorCode.InvalidParams, message: expect.stringContaining('carries only session.attach') });
    expect((await b.answer('bad')).error).toMatchObject({ code: ErrorCode.InvalidParams });
  });

  test('events.subscribe: its answer, then rpc.frame for each real change; rpc.cancel ends it, and no frame of it follows', async () => {
    b = await ready();
    const before = await subscribers(home);
    b.send(request('ev', 'events.subscribe', { heartbeat: false }), request('ev2', 'events.subscribe', { types: ['workspace_changed'], heartbeat: false }));
    expect((await b.answer('ev')).result).toMatchObject({ type: 'subscribed' });
    await b.answer('ev2');
    const { surface_id, id: workspaceId } = await home.rpc('workspace.create', { name: 'streamed', cwd: home.dir });
    await b.line((l) => l.params?.stream === 'ev' && (l.params.frame as { type: string; id?: string }).type === 'workspace_changed' && (l.params.frame as { id: string }).id === workspaceId, 'the new workspace as a frame');
    await home.rpc('surface.rename', { surface_id, name: 'renamed-far' });
    await b.line(
      (l) => l.params?.stream === 'ev' && (l.params.frame as { type: string }).type === 'surface_updated' && (l.params.frame as { surface: { name: string } }).surface?.name === 'renamed-far',
      'the rename as a frame',
    );
    for (const frame of framesOf(b, 'ev')) expect(Object.keys(frame).sort()).toEqual(['jsonrpc', 'method', 'params']);

    b.send(request('c1', 'rpc.cancel', { stream: 'ev' }), request('c2', 'rpc.cancel', { stream: 'nope' }));
    const cancelled = await b.answer('c1');
    expect(cancelled.result).toEqual({});
    expect((await b.answer('c2')).error).toMatchObject({ code: ErrorCode.NotFound, data: { reason: 'unknown_stream' } });
    await until(async () => (await subscribers(home)) === before + 1, 'serve down to the one stream left');
    // A change after the cancel reaches the other stream, and nothing of the cancelled one.
    const second = await home.rpc('workspace.create', { name: 'after-cancel', cwd: home.dir });
    await b.line((l) => l.params?.stream === 'ev2' && (l.params.frame as { id: string }).id === second.id, 'the other stream still served');
    expect(b.parsed().slice(cancelled.index).filter((l) => l.params?.stream === 'ev')).toEqual([]);
  });

  test('stdin ending (ssh gone) closes every connection to serve and exits 0 at once, its stream open', async () => {
    b = await ready();
    const before = await subscribers(home);
    b.send(request('s', 'events.subscribe', {}));
    await b.answer('s');
    expect(await subscribers(home)).toBe(before + 1);
    const ending = Date.now();
    b.child.stdin.end();
    expect(await b.exited).toBe(0);
    expect(Date.now() - ending).toBeLessThan(scaled(3000));
    await until(async () => (await subscribers(home)) === before, "serve's stream gone with the bridge");
  });

  test('stdout failing (EPIPE) ends the bridge too, exit 0', async () => {
    b = await ready();
    const before = await subscribers(home);
    b.send(request('s', 'events.subscribe', { heartbeat: false }));
    await b.answer('s');
    b.child.stdout.destroy();
    // The next line it writes meets a closed pipe.
    await home.rpc('workspace.create', { name: 'nobody-reads', cwd: home.dir });
    expect(await b.exited).toBe(0);
    await until(async () => (await subscribers(home)) === before, "serve's stream gone with the bridge");
  });

  test('serve closing a stream is rpc.end; a serve gone answers each request with an error, and the bridge goes on', async () => {
    b = bridge(home);
    b.send(request('s', 'events.subscribe', { heartbeat: false }));
    await b.answer('s');
    expect(home.run(['serve', 'stop', '--drain-ms', '0']).code).toBe(0);
    const end = await b.line((l) => l.method === 'rpc.end', 'the end of the stream');
    expect(end).toMatchObject({ jsonrpc: '2.0', params: { stream: 's' } });
    b.send(request('late', 'system.ping'));
    expect((await b.answer('late')).error).toMatchObject({ code: ErrorCode.MachineUnavailable, data: { reason: 'machine_offline' } });
  });
});

test('a link that does not read: stdin and the streams wait for stdout; past 16 MiB behind, the streams end with a reason and every answer still comes', async () => {
  const home = makeHome({ PANEFLOW_IPC_SCRIPTING: '1', PANEFLOW_IPC_ORCHESTRATION: '1' });
  let child: ChildProcessWithoutNullStreams | null = null;
  try {
    expect(home.run(['start']).code).toBe(0);
    const { surface_id } = await home.rpc('workspace.create', { name: 'long', cwd: home.dir });
    await home.rpc('surface.send_text', { surface_id, text: `seq -f '%078g' 1 6000`, submit: true, scope: 'all' });
    await until(async () => (await home.rpc('surface.read', { surface_id, lines: 5, scope: 'all' })).text.includes('6000'), 'the lines written');
    child = spawn(process.execPath, [CLI, 'rpc', '--stdio'], { env: home.env });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    await until(() => out.includes('\n'), 'the hello');
    child.stdin.write(JSON.stringify(request('s', 'events.subscribe', { heartbeat: false })) + '\n');
    await until(() => out.includes('"id":"s"'), 'subscribed');
    const before = await subscribers(home);
    // From now on nobody reads: some 55 answers of about 330 KB each pile up behind stdout.
    child.stdout.pause();
    const reads = Array.from({ length: 55 }, (_, i) => request(`r${i}`, 'surface.read', { surface_id, lines: 4000, scope: 'all' }));
    child.stdin.write(reads.map((r) => JSON.stringify(r) + '\n').join(''));
    await until(async () => (await subscribers(home)) === before - 1, 'the stream ended by the bridge');
    child.stdout.resume();
    await until(() => reads.every((r) => out.includes(`"id":"${r.id}"`)), 'every answer');
    const lines = out.trimEnd().split('\n').map((line) => JSON.parse(line) as Line);
    expect(lines.find((l) => l.method === 'rpc.end')).toEqual({ jsonrpc: '2.0', method: 'rpc.end', params: { stream: 's', reason: expect.stringContaining('behind') } });
    expect(lines.filter((l) => typeof l.id === 'string' && l.id.startsWith('r')).every((l) => (l.result as { text: string }).text.includes('6000'))).toBe(true);
    child.stdin.end();
    expect(await new Promise((resolve) => child!.once('exit', resolve))).toBe(0);
  } finally {
    // A failure above leaves the bridge running: stopped here, so that cleanup does not hide the failure.
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    home.cleanup();
  }
});

test('with no instance startable (a home that refuses writes): exit 1, one line on stderr, no hello', () => {
  const home = makeHome();
  const refused = join(home.dir, 'refused');
  mkdirSync(refused);
  const undo = refuseWrites(refused);
  try {
    const result = home.run(['rpc', '--stdio'], { input: `${JSON.stringify(request(1, 'system.ping'))}\n`, env: { PANEFLOW_HOME: join(refused, 'home') } });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.trimEnd().split('\n')).toEqual([expect.stringMatching(/^paneflow: cannot start Paneflow: /)]);
  } finally {
    undo();
    home.cleanup();
  }
});
