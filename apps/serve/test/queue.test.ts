// Queued prompts (the supervisor, issue 33): a pane's prompts wait in serve and go as submits, one
// per turn, in order, when its agent's declared turn ends; they survive a serve restart and a host
// crash, hold on an error or a turn that did not start, and need the scripting gate.
import { PaneQueue, type RpcError, TurnRecord, validate } from '@paneflow/protocol';
import { scaled, until } from '@paneflow/testing';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { killIfAlive, serveCli, startInstance, waitUntilGone, type EventStream, type Frame, type Instance } from './helpers';

const failure = (promise: Promise<unknown>) => promise.then(
  () => {
    throw new Error('it succeeded');
  },
  (error: RpcError) => ({ code: error.code, reason: error.reason, message: error.message }),
);

describe('with scripting on', () => {
  let pf: Instance;
  beforeAll(async () => {
    pf = await startInstance({ scripting: true, orchestration: true });
  });
  afterAll(() => pf.cleanup());

  const queueFile = () => join(pf.env.PANEFLOW_HOME!, 'serve/queue.json');
  const items = async (surface: number) => (await pf.call('queue.list', { surface_id: surface })).queues[0].items;
  const texts = async (surface: number) => (await items(surface)).map((i) => i.text);

  /** An agent pane that has declared itself idle, and a subscription from before it started. */
  async function agent(name: string, command = 'claude') {
    const events = await pf.subscribe();
    const up = await pf.call('workspace.up', { name, layout: 'even_h', panes: [{ name, cwd: pf.dir, command, focus: true, env: {} }] });
    const surface = up.surfaces[0].surface_id;
    await events.next((f) => f.type === 'status_changed' && f.surface_id === surface && f.reason === 'declared' && f.state === 'idle');
    return { events, surface, session: up.surfaces[0].session };
  }
  const turnEnded = (surface: number) => (f: Frame) => f.type === 'turn_ended' && f.surface_id === surface;
  const waiting = (surface: number) => (f: Frame) => f.type === 'status_changed' && f.surface_id === surface && f.state === 'waiting_for_input';
  /** The turns that ended from `mark` on, once `count` have, in the order they began. */
  async function endedTurns(events: EventStream, surface: number, count: number, mark: number) {
    let from = mark;
    const turns: TurnRecord[] = [];
    for (let n = 0; n < count; n++) {
      const frame = await events.next(turnEnded(surface), from);
      from = events.frames.indexOf(frame) + 1;
      turns.push(frame.turn as TurnRecord);
    }
    return turns.sort((a, b) => a.turn - b.turn);
  }
  const endedPrompts = async (events: EventStream, surface: number, count: number, mark: number) => (await endedTurns(events, surface, count, mark)).map((t) => t.prompt);
  /** The agent asks a permission question and waits: nothing queued goes until it is answered. */
  async function parkWaiting(events: EventStream, surface: number) {
    const mark = events.mark;
    await pf.call('surface.send_text', { surface_id: surface, text: 'ask permission first', submit: true });
    await events.next(waiting(surface), mark);
  }

  test('the first goes at once to an idle agent, the rest one per turn, in order, each recorded as the queue’s prompt', async () => {
    const { events, surface } = await agent('order', 'claude --work-ms 400');
    const mark = events.mark;
    const first = await pf.call('queue.add', { surface_id: surface, text: 'one' });
    expect(first).toMatchObject({ sent_now: true, item: { id: expect.stringMatching(/^q\d+$/), surface_id: surface, text: 'one', position: 1 } });
    const second = await pf.call('queue.add', { surface_id: surface, text: 'two\nwith a second line' });
    const third = await pf.call('queue.add', { surface_id: surface, text: 'three' });
    expect([second.sent_now, third.sent_now]).toEqual([false, false]);
    expect(Number(third.item.id.slice(1))).toBeGreaterThan(Number(second.item.id.slice(1)));
    const turns = await endedTurns(events, surface, 3, mark);
    expect(turns.map((t) => t.prompt)).toEqual([
      { text: 'one', source: 'queue' },
      { text: 'two\nwith a second line', source: 'queue' },
      { text: 'three', source: 'queue' },
    ]);
    // One per turn: each turn began only after the one before it ended.
    for (let n = 1; n < turns.length; n++) expect(turns[n].started_at_ms).toBeGreaterThanOrEqual(turns[n - 1].ended_at_ms!);
    expect(turns.map((t) => t.ended)).toEqual(['finished', 'finished', 'finished']);
    expect(await items(surface)).toEqual([]);
    expect((await pf.call('surface.status', { surface_id: surface })).supervision).toMatchObject({ queued: 0, queue_held: null });
  });

  test('reordered with move, removed with remove; unknown ids and positions past the end are refused and change nothing', async () => {
    const { events, surface } = await agent('reorder');
    await parkWaiting(events, surface);
    const ids: string[] = [];
    for (const text of ['x', 'y', 'z']) {
      const added = await pf.call('queue.add', { surface_id: surface, text });
      expect(added.sent_now).toBe(false);
      ids.push(added.item.id);
    }
    // Faces hear the count in the status object.
    await events.next((f) => f.type === 'status_changed' && f.surface_id === surface && (f.surface_status as { supervision: { queued: number } }).supervision.queued === 3);
    const moved = await pf.call('queue.move', { id: ids[2], position: 1 });
    expect(moved.items.map((i) => [i.text, i.position])).toEqual([['z', 1], ['x', 2], ['y', 3]]);
    expect(await failure(pf.call('queue.move', { id: ids[0], position: 4 }))).toMatchObject({ code: -32602, reason: 'bad_position' });
    expect(await failure(pf.call('queue.remove', { id: 'q999999' }))).toMatchObject({ code: -32020, reason: 'not_found', message: 'queued prompt q999999 not found' });
    expect(await failure(pf.call('queue.send_now', { id: 'q999999' }))).toMatchObject({ code: -32020 });
    expect(await texts(surface)).toEqual(['z', 'x', 'y']);
    expect((await pf.call('queue.remove', { id: ids[0] })).removed).toMatchObject({ id: ids[0], text: 'x', position: 2 });
    expect(await texts(surface)).toEqual(['z', 'y']);

    // Answered: its turn ends, then z and y go, in that order.
    const mark = events.mark;
    await pf.call('surface.send_keystroke', { surface_id: surface, keystroke: '1', force: true });
    const prompts = await endedPrompts(events, surface, 3, mark);
    expect(prompts.slice(1).map((p) => p?.text)).toEqual(['z', 'y']);
  });

  test('an agent that declares an error holds its queue (one notice), and send_now releases it', async () => {
    const { events, surface } = await agent('errs');
    const mark = events.mark;
    await pf.call('surface.send_text', { surface_id: surface, text: 'error', submit: true }).catch(() => undefined);
    await events.next((f) => f.type === 'status_changed' && f.surface_id === surface && f.state === 'errored', mark);
    const a1 = await pf.call('queue.add', { surface_id: surface, text: 'a1' });
    const a2 = await pf.call('queue.add', { surface_id: surface, text: 'a2' });
    expect([a1.sent_now, a2.sent_now]).toEqual([false, false]);
    const notice = await events.next((f) => f.type === 'notification' && f.surface_id === surface && f.kind === 'queue_held', mark);
    expect(notice.body).toBe('queue held (errored): the fixture failed on purpose');
    const [queue] = (await pf.call('queue.list', { surface_id: surface })).queues;
    expect(queue.held).toMatchObject({ reason: 'errored', message: 'the fixture failed on purpose' });
    expect(queue.items.map((i) => i.text)).toEqual(['a1', 'a2']);
    expect(validate(PaneQueue, queue)).toBeNull();
    expect((await pf.call('surface.status', { surface_id: surface })).supervision?.queue_held).toMatchObject({ reason: 'errored' });
    expect(events.frames.filter((f) => f.type === 'notification' && f.kind === 'queue_held' && f.surface_id === surface)).toHaveLength(1);

    // A person sends the second now: its turn starts, the hold is gone, and once it ends the first goes.
    const sent = await pf.call('queue.send_now', { id: a2.item.id });
    expect(sent).toMatchObject({ id: a2.item.id, sent: { submitted: true, started: true } });
    expect((await pf.call('queue.list', { surface_id: surface })).queues[0]).toMatchObject({ held: null, items: [{ id: a1.item.id }] });
    const prompts = await endedPrompts(events, surface, 2, mark);
    expect(prompts.map((p) => p?.text)).toEqual(['a2', 'a1']);
  });

  test('a delivery that starts no turn holds the queue; the agent’s next turn, ended normally, releases it', async () => {
    const { events, surface } = await agent('not-started');
    const mark = events.mark;
    // A blank line: the fixture reads it and starts no turn.
    expect((await pf.call('queue.add', { surface_id: surface, text: ' ' })).sent_now).toBe(true);
    const notice = await events.next((f) => f.type === 'notification' && f.surface_id === surface && f.kind === 'queue_held', mark);
    expect(notice.body).toMatch(/^queue held \(not_started\): q\d+ was submitted, but no turn started within 3 s$/);
    const next = await pf.call('queue.add', { surface_id: surface, text: 'after the hold' });
    expect(next.sent_now).toBe(false);
    expect((await pf.call('queue.list', { surface_id: surface })).queues[0]).toMatchObject({ held: { reason: 'not_started' }, items: [{ id: next.item.id }] });

    // A person's own turn ends normally: the hold goes, and the queued prompt follows.
    await pf.call('surface.send_text', { surface_id: surface, text: 'by hand', submit: true });
    const prompts = await endedPrompts(events, surface, 2, mark);
    expect(prompts).toEqual([
      { text: 'by hand', source: 'send' },
      { text: 'after the hold', source: 'queue' },
    ]);
    expect((await pf.call('queue.list', { surface_id: surface })).queues[0]).toMatchObject({ held: null, items: [] });
  });

  test('the queue survives a serve restart: kill -9 serve, start it again, the queue is there and delivered', async () => {
    const { events, surface } = await agent('serve-restart');
    await parkWaiting(events, surface);
    const ids = [(await pf.call('queue.add', { surface_id: surface, text: 'after restart one' })).item.id, (await pf.call('queue.add', { surface_id: surface, text: 'after restart two' })).item.id];
    const before = (await pf.call('queue.list', { surface_id: surface })).queues;

    killIfAlive(pf.servePid);
    await waitUntilGone(pf.servePid);
    const restarted = serveCli(pf.env, 'start');
    expect(restarted.code).toBe(0);
    pf.servePid = JSON.parse(restarted.stdout).pid;
    expect((await pf.call('queue.list', { surface_id: surface })).queues).toEqual(before);

    const after = await pf.subscribe();
    await pf.call('surface.send_keystroke', { surface_id: surface, keystroke: '1', force: true });
    const prompts = await endedPrompts(after, surface, 3, 0);
    expect(prompts.slice(1)).toEqual([
      { text: 'after restart one', source: 'queue' },
      { text: 'after restart two', source: 'queue' },
    ]);
    expect(ids.every((id) => !readFileSync(queueFile(), 'utf8').includes(id))).toBe(true);
  }, scaled(60_000));

  test('the queue survives a host crash: kill -9 the host, restart the lost pane, its agent gets the queue', async () => {
    const { events, surface, session } = await agent('host-crash');
    await parkWaiting(events, surface);
    const added = await pf.call('queue.add', { surface_id: surface, text: 'after the crash' });
    expect(added.sent_now).toBe(false);

    const host = pf.hostPid();
    killIfAlive(host);
    await waitUntilGone(host);
    await until(async () => (await pf.call('session.list', {})).sessions.find((s) => s.session === session)?.lifecycle === 'lost' || null, 'the session lost', 30_000);
    expect(await texts(surface)).toEqual(['after the crash']);

    const mark = events.mark;
    await pf.call('surface.restart', { surface_id: surface });
    // The same session, a new generation: its agent comes back idle, and the queued prompt goes.
    const queued = (f: Frame) => (f.turn as TurnRecord | undefined)?.prompt?.source === 'queue';
    const started = await events.next((f) => f.type === 'turn_started' && f.surface_id === surface && queued(f), mark, 40_000);
    expect(started.session).toBe(session);
    expect((started.turn as TurnRecord)).toMatchObject({ generation: 2, prompt: { text: 'after the crash', source: 'queue' } });
    await events.next((f) => turnEnded(surface)(f) && queued(f), mark, 40_000);
    expect(await texts(surface)).toEqual([]);
  }, scaled(90_000));

  test('a turn the host’s crash ended does not release a hold: the restarted agent gets nothing until a turn ends normally', async () => {
    const { events, surface, session } = await agent('crash-held');
    const mark = events.mark;
    expect((await pf.call('queue.add', { surface_id: surface, text: ' ' })).sent_now).toBe(true);
    await events.next((f) => f.type === 'notification' && f.surface_id === surface && f.kind === 'queue_held', mark);
    await pf.call('queue.add', { surface_id: surface, text: 'held through the crash' });
    await parkWaiting(events, surface);

    const host = pf.hostPid();
    killIfAlive(host);
    await waitUntilGone(host);
    await until(async () => (await pf.call('session.list', {})).sessions.find((s) => s.session === session)?.lifecycle === 'lost' || null, 'the session lost', 30_000);
    const restarted = events.mark;
    await pf.call('surface.restart', { surface_id: surface });
    // The restarted agent declares idle: had the hold gone, the prompt would leave the queue in that same reduction.
    await events.next((f) => f.type === 'status_changed' && f.surface_id === surface && f.reason === 'declared' && f.state === 'idle', restarted, 40_000);
    expect((await pf.call('queue.list', { surface_id: surface })).queues[0]).toMatchObject({ held: { reason: 'not_started' }, items: [{ text: 'held through the crash' }] });
  }, scaled(90_000));

  test('queue.json is written by rename after every change and holds what the list shows', async () => {
    const { events, surface, session } = await agent('on-disk');
    await parkWaiting(events, surface);
    const inode = () => statSync(queueFile()).ino;
    const added = await pf.call('queue.add', { surface_id: surface, text: 'kept on disk' });
    const first = inode();
    const saved = JSON.parse(readFileSync(queueFile(), 'utf8'));
    expect(saved.version).toBe(1);
    expect(saved.next_id).toBeGreaterThan(Number(added.item.id.slice(1)));
    expect(saved.queues.find((q: { session: string }) => q.session === session)).toEqual({ session, held: null, items: [{ id: added.item.id, text: 'kept on disk', queued_at_ms: added.item.queued_at_ms }] });
    await pf.call('queue.remove', { id: added.item.id });
    expect(inode()).not.toBe(first);
    expect(JSON.parse(readFileSync(queueFile(), 'utf8')).queues.find((q: { session: string }) => q.session === session)).toBeUndefined();
    // No temp file is left beside it.
    expect(readdirSync(join(pf.env.PANEFLOW_HOME!, 'serve')).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  test('closing a pane removes its queue', async () => {
    const { events, surface } = await agent('closed');
    await parkWaiting(events, surface);
    const added = await pf.call('queue.add', { surface_id: surface, text: 'never sent' });
    await pf.call('surface.close', { surface_id: surface });
    expect((await pf.call('queue.list', {})).queues.find((q) => q.surface_id === surface)).toBeUndefined();
    expect(readFileSync(queueFile(), 'utf8')).not.toContain(added.item.id);
  });

  test('bad input is refused and queues nothing: an unknown pane, a pane without an agent, text over the limit, an extra field', async () => {
    const shell = await pf.call('workspace.create', { cwd: pf.dir, name: 'plain-shell' });
    expect(await failure(pf.call('queue.add', { surface_id: 999999, text: 'x' }))).toMatchObject({ code: -32020 });
    expect(await failure(pf.call('queue.add', { surface_id: shell.surface_id, text: 'x' }))).toMatchObject({ code: -32030, reason: 'no_agent' });
    const { surface } = await agent('limits');
    expect(await failure(pf.call('queue.add', { surface_id: surface, text: 'x'.repeat(64 * 1024 + 1) }))).toMatchObject({ code: -32602, reason: 'text_too_long' });
    expect(await failure(pf.call('queue.add', { surface_id: surface, text: '' }))).toMatchObject({ code: -32602 });
    expect(await failure(pf.call('queue.add', { surface_id: surface, text: 'x', when: 'later' } as never))).toMatchObject({ code: -32602 });
    expect(await items(surface)).toEqual([]);
    expect(await items(shell.surface_id)).toEqual([]);
  });
});

test('a garbage queue.json is moved aside and named in the log once; serve starts with no queue', async () => {
  const pf = await startInstance({ scripting: true });
  try {
    expect(serveCli(pf.env, 'stop', '--drain-ms', '100').code).toBe(0);
    const file = join(pf.env.PANEFLOW_HOME!, 'serve/queue.json');
    writeFileSync(file, '{"version": 1, "next_id": "many"');
    const started = serveCli(pf.env, 'start');
    expect(started.code).toBe(0);
    pf.servePid = JSON.parse(started.stdout).pid;
    expect((await pf.call('queue.list', {})).queues).toEqual([]);
    expect(readFileSync(`${file}.unreadable`, 'utf8')).toBe('{"version": 1, "next_id": "many"');
    expect(pf.serveLog().match(/queue\.json is not a saved queue/g)).toHaveLength(1);
  } finally {
    pf.cleanup();
  }
});

test('with the scripting gate closed the queue refuses every write, queues nothing, and capabilities leave its writes out', async () => {
  const pf = await startInstance({ orchestration: true });
  try {
    const up = await pf.call('workspace.up', { name: 'gated', layout: 'even_h', panes: [{ name: 'gated', cwd: pf.dir, command: 'claude', focus: true, env: {} }] });
    const surface = up.surfaces[0].surface_id;
    expect(await failure(pf.call('queue.add', { surface_id: surface, text: 'no' }))).toMatchObject({ code: -32601, reason: 'gate_closed' });
    for (const call of [pf.call('queue.remove', { id: 'q1' }), pf.call('queue.move', { id: 'q1', position: 1 }), pf.call('queue.send_now', { id: 'q1' })]) {
      expect(await failure(call)).toMatchObject({ code: -32601, reason: 'gate_closed' });
    }
    expect((await pf.call('queue.list', { surface_id: surface })).queues).toEqual([{ surface_id: surface, session: up.surfaces[0].session, held: null, items: [] }]);
    const { methods } = await pf.call('system.capabilities', {});
    expect(methods).toContain('queue.list');
    expect(methods.filter((m) => m.startsWith('queue.'))).toEqual(['queue.list']);
  } finally {
    pf.cleanup();
  }
});

test('without orchestration a queue write is checked against the caller’s workspace, as send_text is', async () => {
  const pf = await startInstance({ scripting: true });
  try {
    // Each turn waits on a permission prompt: the second prompt queued stays queued.
    // An agent only once serve has seen it declare: a queued prompt waits for an agent's turn.
    const up = async (name: string) => {
      const pane = (await pf.call('workspace.up', { name, layout: 'even_h', panes: [{ name, cwd: pf.dir, command: 'claude --block', focus: true, env: {} }] })).surfaces[0];
      await until(async () => {
        const status = await pf.call('surface.status', { surface_id: pane.surface_id });
        return status.reason === 'declared' && status.state === 'idle';
      }, `${name}'s agent idle`);
      return pane;
    };
    const mine = await up('mine');
    const other = await up('other');
    const workspaceOf = async (surface: number) => (await pf.call('surface.list', { scope: 'all' })).surfaces.find((s) => s.surface_id === surface)!.workspace_id;
    const [mineWs, otherWs] = [await workspaceOf(mine.surface_id), await workspaceOf(other.surface_id)];
    expect(await failure(pf.call('queue.add', { surface_id: other.surface_id, text: 'x', workspace_id: mineWs }))).toMatchObject({ code: -32001, reason: 'outside_scope' });
    expect(await failure(pf.call('queue.add', { surface_id: mine.surface_id, text: 'x', scope: 'all', workspace_id: mineWs }))).toMatchObject({ code: -32001 });
    await pf.call('queue.add', { surface_id: other.surface_id, text: 'first', workspace_id: otherWs });
    const added = await pf.call('queue.add', { surface_id: other.surface_id, text: 'second', workspace_id: otherWs });
    expect(added.sent_now).toBe(false);
    // Another workspace's caller can neither move, remove nor send it.
    expect(await failure(pf.call('queue.move', { id: added.item.id, position: 1, workspace_id: mineWs }))).toMatchObject({ code: -32001 });
    expect(await failure(pf.call('queue.remove', { id: added.item.id, workspace_id: mineWs }))).toMatchObject({ code: -32001 });
    expect(await failure(pf.call('queue.send_now', { id: added.item.id, workspace_id: mineWs }))).toMatchObject({ code: -32001 });
    expect((await pf.call('queue.list', { surface_id: other.surface_id })).queues[0].items.map((i) => i.text)).toContain('second');
    expect((await pf.call('queue.remove', { id: added.item.id, workspace_id: otherWs })).removed.text).toBe('second');
  } finally {
    pf.cleanup();
  }
});

test('a queue read back by a serve whose scripting gate is closed is held (refused), and nothing is typed', async () => {
  const pf = await startInstance({ orchestration: true });
  try {
    const events = await pf.subscribe();
    const up = await pf.call('workspace.up', { name: 'regated', layout: 'even_h', panes: [{ name: 'regated', cwd: pf.dir, command: 'claude', focus: true, env: {} }] });
    const { surface_id: surface, session } = up.surfaces[0];
    await events.next((f) => f.type === 'status_changed' && f.surface_id === surface && f.reason === 'declared' && f.state === 'idle');
    // A queue a serve with the gate open left behind.
    expect(serveCli(pf.env, 'stop', '--drain-ms', '100').code).toBe(0);
    const item = { id: 'q1', text: 'never typed here', queued_at_ms: Date.now() };
    writeFileSync(join(pf.env.PANEFLOW_HOME!, 'serve/queue.json'), JSON.stringify({ version: 1, next_id: 2, queues: [{ session, held: null, items: [item] }] }));
    const started = serveCli(pf.env, 'start');
    expect(started.code).toBe(0);
    pf.servePid = JSON.parse(started.stdout).pid;
    const queue = await until(async () => {
      const [q] = (await pf.call('queue.list', { surface_id: surface })).queues;
      return q.held ? q : null;
    }, 'the queue held');
    expect(queue).toMatchObject({ held: { reason: 'refused', message: 'surface.send_text disabled: relaunch with PANEFLOW_IPC_SCRIPTING=1' }, items: [{ id: 'q1', text: item.text, position: 1 }] });
    expect((await pf.call('surface.read', { surface_id: surface, lines: 200, fenced: false })).text).not.toContain('never typed');
  } finally {
    pf.cleanup();
  }
});
