import type { EventFrame, EventFrameOf, SurfaceEntry, WorkspaceEntry } from '@paneflow/protocol';
import { status } from './status-fixture';
import { agentRows, displayText, echoText, endedNotice, jsonText, headerStatus, noticeText, Picture, rowMark, spinnerFrame, SPINNER_FRAMES, subagentsText, type ReadRequest } from '../src';

const declared = (state: 'idle' | 'working' | 'done' | 'blocked' | 'error', message: string | null = null) => ({ state, kind: null, progress: null, id: null, app: null, title: null, message });
const workspace = (index: number, over: Partial<WorkspaceEntry> = {}): WorkspaceEntry => ({
  index,
  id: `0000000${index}-0000-4000-8000-000000000000`,
  name: `w${index}`,
  active: index === 0,
  surfaces: [],
  layout: null,
  focus: null,
  ...over,
});
const surface = (id: number): SurfaceEntry => ({ surface_id: id, name: null, title: '', cwd: '/', cmd: '', workspace: 0, workspace_id: workspace(0).id, session: status({}).session });

describe('the sidebar and header rules (REFERENCE.md §3.9)', () => {
  test('each row mark comes from the reduced status and the current record, never from the screen', () => {
    expect(rowMark(status({ status: 'busy' }))).toBe('working');
    expect(rowMark(status({ status: 'attention' }))).toBe('need_you');
    expect(rowMark(status({ status: 'errored' }))).toBe('error');
    expect(rowMark(status({ declared: declared('done'), unread: true }))).toBe('done');
    expect(rowMark(status({ declared: declared('done'), unread: false }))).toBe('none');
    expect(rowMark(status({ reason: 'no_signal', status: 'idle' }))).toBe('no_status');
  });

  test('agents that need you come first, then the others in pane order; panes without an agent have no row', () => {
    const rows = agentRows(
      [status({ surface_id: 1 }), status({ surface_id: 2, status: 'attention', message: 'approve?' }), status({ surface_id: 3, tool: null })],
      (s) => `pane ${s.surface_id}`,
    );
    expect(rows.map((r) => [r.surface_id, r.mark, r.message])).toEqual([
      [2, 'need_you', 'approve?'],
      [1, 'none', null],
    ]);
  });

  test("an agent serve hides (the config's visibility key) has no row, even when it needs you", () => {
    const rows = agentRows([status({ surface_id: 1, hidden: true, status: 'attention' }), status({ surface_id: 2, hidden: false })], (s) => `pane ${s.surface_id}`);
    expect(rows.map((r) => r.surface_id)).toEqual([2]);
  });

  test('running subagents are counted in one wording for every face, on the row too; none, or an agent that is not running, says nothing', () => {
    expect(subagentsText(status({ subagents: ['explore-1'] }))).toBe('1 subagent');
    expect(subagentsText(status({ subagents: ['a', 'b', 'c'] }))).toBe('3 subagents');
    expect(subagentsText(status({ subagents: [] }))).toBeNull();
    expect(subagentsText(status({}))).toBeNull();
    expect(subagentsText(status({ subagents: ['a'], lifecycle: 'lost' }))).toBeNull();
    const rows = agentRows([status({ surface_id: 1, status: 'busy', subagents: ['a', 'b'] }), status({ surface_id: 2 })], (s) => `pane ${s.surface_id}`);
    expect(rows.map((r) => [r.surface_id, r.subagents])).toEqual([
      [1, '2 subagents'],
      [2, null],
    ]);
  });

  test('a header reads <state>[: <kind>] · <msg or title>, and nothing for idle', () => {
    expect(headerStatus({ ...declared('blocked', 'Apply?'), kind: 'permission' })).toBe('blocked: permission · Apply?');
    expect(headerStatus(declared('working'))).toBe('working');
    expect(headerStatus(declared('idle', 'x'))).toBeNull();
  });

  test('the spinner cycles its frames', () => {
    expect(spinnerFrame(0)).toBe(SPINNER_FRAMES[0]);
    expect(spinnerFrame(SPINNER_FRAMES.length + 1)).toBe(SPINNER_FRAMES[1]);
  });
});

describe('the picture kept from events', () => {
  const frame = (f: object) => ({ at_ms: 1, ...f }) as EventFrame;

  test('status, panes, workspaces and focus change from their frames alone', () => {
    const picture = new Picture();
    picture.load([workspace(0, { surfaces: [1] }), workspace(1)], [surface(1)], [status({})]);
    expect(picture.apply(frame({ type: 'status_changed', surface_id: 1, session: surface(1).session, surface_status: status({ status: 'busy', state: 'thinking' }) }))).toBe('status');
    expect(picture.statuses.get(1)?.state).toBe('thinking');
    expect(picture.apply(frame({ type: 'declared_changed', surface_id: 1, session: surface(1).session, declared: declared('working') }))).toBe('status');
    expect(picture.statuses.get(1)?.declared?.state).toBe('working');
    expect(picture.apply(frame({ type: 'surface_created', surface_id: 2, session: surface(2).session, workspace: 0, surface: surface(2) }))).toBe('surfaces');
    expect([...picture.surfaces.keys()]).toEqual([1, 2]);
    expect(picture.apply(frame({ type: 'focus_changed', surface_id: 2, session: surface(2).session, workspace: 0 }))).toBe('focus');
    expect(picture.active?.focus).toBe(2);
    expect(picture.apply(frame({ type: 'surface_closed', surface_id: 1, session: surface(1).session, workspace: 0 }))).toBe('surfaces');
    expect(picture.statuses.has(1)).toBe(false);
  });

  test('a closed workspace goes and the ones after it move up; a new one is added in order', () => {
    const picture = new Picture();
    picture.load([workspace(0), workspace(1), workspace(2)], [], []);
    picture.apply(frame({ type: 'workspace_changed', ...workspace(1), active: false, closed: true }));
    expect(picture.workspaces.map((w) => [w.name, w.index])).toEqual([
      ['w0', 0],
      ['w2', 1],
    ]);
    picture.apply(frame({ type: 'workspace_changed', ...workspace(2, { id: '00000009-0000-4000-8000-000000000000', name: 'new', active: true }) }));
    expect(picture.workspaces.map((w) => w.name)).toEqual(['w0', 'w2', 'new']);
    expect(picture.apply(frame({ type: 'dropped', count: 3 }))).toBe('resync');
  });
});

describe('a status read while events flow', () => {
  const changed = (surface_id: number, revision: number) => ({ type: 'status_changed', at_ms: 1, surface_id, surface_status: status({ surface_id, revision }) }) as EventFrame;

  test('the newer revision stands, whichever came last: an answer overtaking events in flight, an event after an answer, a full load', () => {
    const picture = new Picture();
    picture.load([workspace(0, { surfaces: [1, 2] })], [surface(1), surface(2)], []);
    expect(picture.read(status({ surface_id: 1, revision: 5 }))).toBe(true); // the answer, newer
    expect(picture.apply(changed(1, 4))).toBe('none'); // an older event arriving after it
    expect(picture.statuses.get(1)?.revision).toBe(5);
    expect(picture.apply(changed(1, 6))).toBe('status');
    expect(picture.read(status({ surface_id: 1, revision: 6 }))).toBe(true); // the same moment
    picture.apply(changed(2, 9));
    picture.load([workspace(0, { surfaces: [1, 2] })], [surface(1), surface(2)], [status({ surface_id: 1, revision: 8 }), status({ surface_id: 2, revision: 8 })]);
    expect([picture.statuses.get(1)?.revision, picture.statuses.get(2)?.revision]).toEqual([8, 9]);
    picture.load([workspace(0, { surfaces: [2] })], [surface(2)], []);
    expect([...picture.statuses.keys()]).toEqual([2]);
  });
});

describe('the full read and a new pane', () => {
  const frame = (f: object) => ({ at_ms: 1, ...f }) as EventFrameOf<'surface_created'>;

  test('reload reads the workspaces, the panes and each pane\'s status; a status that cannot be read is left out', async () => {
    const asked: string[] = [];
    const request = (async (method: string, params: { surface_id?: number }) => {
      asked.push(method);
      if (method === 'workspace.list') return { workspaces: [workspace(0, { surfaces: [1, 2] })] };
      if (method === 'surface.list') return { surfaces: [surface(1), surface(2)] };
      if (params.surface_id === 2) throw new Error('closed meanwhile');
      return status({ surface_id: params.surface_id, state: 'thinking' });
    }) as ReadRequest;
    const picture = new Picture();
    await picture.reload(request);
    expect(asked.sort()).toEqual(['surface.list', 'surface.status', 'surface.status', 'workspace.list']);
    expect([...picture.surfaces.keys()]).toEqual([1, 2]);
    expect([...picture.statuses.keys()]).toEqual([1]);
  });

  test("a new pane's status comes with its frame; one that came without is read once", async () => {
    const picture = new Picture();
    picture.load([workspace(0)], [], []);
    const request = (async () => status({ surface_id: 3, revision: 2 })) as ReadRequest;
    const withStatus = frame({ type: 'surface_created', surface_id: 2, session: surface(2).session, workspace: 0, surface: surface(2), surface_status: status({ surface_id: 2 }) });
    expect(picture.apply(withStatus)).toBe('surfaces');
    expect(picture.statuses.get(2)?.surface_id).toBe(2);
    expect(await picture.readCreated(withStatus, request)).toBeNull();
    const without = frame({ type: 'surface_created', surface_id: 3, session: surface(3).session, workspace: 0, surface: surface(3) });
    picture.apply(without);
    expect(picture.statuses.has(3)).toBe(false);
    expect((await picture.readCreated(without, request))?.revision).toBe(2);
    expect(picture.statuses.get(3)?.revision).toBe(2);
  });
});

describe('an agent pane that is not running', () => {
  const failed = { mode: 'session' as const, provider_session_id: 'x', argv: ['claude'], outcome: 'failed' as const, reason: 'it exited with code 1 first', at_ms: 1 };
  test('lost and exited agents offer a resume; a failed resume offers a fresh start; running panes and shells nothing', () => {
    expect(endedNotice(status({ lifecycle: 'lost' }))).toEqual({ badge: 'Lost', text: 'lost', action: 'resume' });
    expect(endedNotice(status({ lifecycle: 'exited' }))).toEqual({ badge: 'Exited', text: 'exited', action: 'resume' });
    expect(endedNotice(status({ lifecycle: 'failed' }))).toEqual({ badge: 'Failed', text: 'could not start', action: 'resume' });
    expect(endedNotice(status({ lifecycle: 'exited', restart: failed }))).toEqual({ badge: 'Failed', text: 'resume failed: it exited with code 1 first', action: 'fresh' });
    expect(endedNotice(status({ lifecycle: 'live', restart: failed }))).toBeNull();
    expect(endedNotice(status({ lifecycle: 'starting' }))).toBeNull();
    expect(endedNotice(status({ lifecycle: 'lost', tool: null }))).toBeNull();
  });

  test("its row says so, whatever it declared last, and keeps its place", () => {
    const rows = agentRows(
      [status({ surface_id: 1, lifecycle: 'lost', status: 'attention', state: 'waiting_for_input' }), status({ surface_id: 2, status: 'attention', state: 'waiting_for_input' })],
      (s) => `agent ${s.surface_id}`,
    );
    expect(rows.map((r) => [r.surface_id, r.mark])).toEqual([
      [2, 'need_you'],
      [1, 'ended'],
    ]);
  });
});

describe('untrusted text as every face shows it (OSC7501.md §11.2)', () => {
  // An OSC 52 clipboard write, a screen clear, a carriage return, a C1 CSI and a right-to-left override.
  const NASTY = 'a\x1b]52;c;cHduZWQ=\x07b\x1b[2Jc\rd\u009b2Je\u202ef';
  const SHOWN = 'a^[]52;c;cHduZWQ=^Gb^[[2Jc^Md\ufffd2Jef';
  // eslint-disable-next-line no-control-regex -- what may not remain
  const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff\u00ad]/;

  test('displayText: controls in caret notation, C1 as U+FFFD, bidi and invisible characters removed, the rest kept', () => {
    expect(displayText(NASTY)).toBe(SHOWN);
    expect(displayText('zero\u200bwidth\u2066isolate\u2069 \u00adsoft\ufeff\u061c')).toBe('zerowidthisolate soft');
    expect(displayText('日本語 🚀 café ✓ ^ \\x1b')).toBe('日本語 🚀 café ✓ ^ \\x1b');
    expect(displayText(SHOWN)).toBe(SHOWN);
    expect(displayText('one\u2028two\u2029three')).toBe('one\ufffdtwo\ufffdthree');
  });

  test('jsonText: the same data as JSON.stringify, with what displayText would change as \\u escapes', () => {
    const value = { name: NASTY, cwd: '/tmp/line\u2028para\u2029', del: '\x7f', plain: '日本語 🚀 café', lone: '\ud800' };
    const text = jsonText(value);
    expect(JSON.parse(text)).toEqual(value);
    expect(text).not.toMatch(UNSAFE);
    expect(text).not.toMatch(/[\u2028\u2029]/);
    expect(text).toContain('/tmp/line\\u2028para\\u2029');
    expect(text).toContain('\\u202e');
    expect(text).toContain('日本語 🚀 café');
    expect(jsonText({ a: [1] }, 2)).toBe(JSON.stringify({ a: [1] }, null, 2));
  });

  test('echoText: a caller\'s text cut after 80 characters with its length, shown as displayText shows it', () => {
    expect(echoText('a\x1b[2J')).toBe('a^[[2J');
    expect(echoText('x'.repeat(80))).toBe('x'.repeat(80));
    expect(echoText('🚀'.repeat(2_000_000))).toBe(`${'🚀'.repeat(80)}… (2000000 characters)`);
    expect(echoText('abc\x07def', 3)).toBe('abc… (7 characters)');
  });

  test('row labels and messages, header statuses, ended notices and notifications come out clean', () => {
    const rows = agentRows([status({ surface_id: 2, status: 'attention', message: NASTY }), status({ surface_id: 3, declared: { ...declared('blocked', NASTY) }, status: 'attention' })], () => NASTY);
    expect(rows.map((r) => [r.label, r.message])).toEqual([
      [SHOWN, SHOWN],
      [SHOWN, SHOWN],
    ]);
    expect(headerStatus({ ...declared('blocked', NASTY), kind: 'permission' })).toBe(`blocked: permission · ${SHOWN}`);
    expect(headerStatus({ ...declared('working'), title: NASTY })).toBe(`working · ${SHOWN}`);
    const failed = { mode: 'session' as const, provider_session_id: 'x', argv: ['claude'], outcome: 'failed' as const, reason: NASTY, at_ms: 1 };
    expect(endedNotice(status({ lifecycle: 'exited', restart: failed }))!.text).toBe(`resume failed: ${SHOWN}`);
    expect(noticeText('needs_input', NASTY, NASTY, NASTY)).toEqual({ title: `Needs input: ${SHOWN} in ${SHOWN}`, body: SHOWN });
    expect(noticeText('finished', 'lead', undefined, null)).toEqual({ title: 'Finished: lead', body: '' });
    for (const text of [...rows.flatMap((r) => [r.label, r.message!]), headerStatus(declared('error', NASTY))!]) expect(text).not.toMatch(UNSAFE);
  });
});
