import { HOOK_FIELD_LIMITS, HostFrame, HostMethods, PublicMethods, validate, type MethodTable } from '../src';

describe.each([
  ['host', HostMethods],
  ['public', PublicMethods],
] as const)('the %s protocol', (_name, methods) => {
  test.each(Object.keys(methods))('%s: params refuse an unknown field', (name) => {
    const spec = (methods as MethodTable)[name];
    expect(validate(spec.params, { __not_a_field: 1 })).toMatchObject({ message: expect.stringMatching(/unknown field|missing field/) });
  });
});

/** A hook frame as REFERENCE.md §7.1 shows it, with no payload. */
const frame = {
  tool: 'claude',
  session: '6f1c2f3a-9b0e-4d7a-8c1e-2a3b4c5d6e7f',
  surface_id: 7,
  workspace_id: '0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9',
  pid: 4242,
  emitted_at_ms: 1767225600000,
  payload: {},
};

test('a hook frame as REFERENCE.md §7.1 shows it is valid ai.stop params', () => {
  const params = { ...frame, payload: { session_id: '…', last_result: 'Tests pass.', transcript_path: '/home/me/.claude/projects/x.jsonl' } };
  expect(validate(PublicMethods['ai.stop'].params, params)).toBeNull();
});

describe('hook frames are bounded (REFERENCE.md §7.1)', () => {
  const check = (params: unknown) => validate(PublicMethods['ai.stop'].params, params);

  test.each([
    ['no pid', { pid: null }],
    ['the largest pid', { pid: 4194304 }],
    ['each text at its limit', { payload: Object.fromEntries(Object.entries(HOOK_FIELD_LIMITS).map(([field, limit]) => [field, 'x'.repeat(limit)])) }],
    ['the markers the hook adds', { payload: { phase: 'pre', source: 'interrupt', exit_code: null } }],
    ['an exit code', { payload: { exit_code: 3 } }],
  ])('%s is valid', (_what, change) => {
    expect(check({ ...frame, ...change })).toBeNull();
  });

  test.each([
    ['a 900 KiB workspace_id', { workspace_id: 'w'.repeat(900 * 1024) }, 'workspace_id'],
    ['a workspace_id with control characters', { workspace_id: '0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f\x1b' }, 'workspace_id'],
    ['a session that is not a UUID', { session: 'x'.repeat(1000) }, 'session'],
    ['pid -1', { pid: -1 }, 'pid'],
    ['pid 0', { pid: 0 }, 'pid'],
    ['pid 1e308', { pid: 1e308 }, 'pid'],
    ['pid -1e308', { pid: -1e308 }, 'pid'],
    ['a pid past pid_max', { pid: 4194305 }, 'pid'],
    ['a 65-character tool', { tool: 't'.repeat(65) }, 'tool'],
    ['emitted_at_ms 1e308', { emitted_at_ms: 1e308 }, 'emitted_at_ms'],
    ['a message over 4096 characters', { payload: { message: 'm'.repeat(4097) } }, 'payload/message'],
    ['a prompt over 512 characters', { payload: { prompt: 'p'.repeat(513) } }, 'payload/prompt'],
    ['a text that is not a string', { payload: { last_result: { nested: true } } }, 'payload/last_result'],
    ['an unknown payload field', { payload: { blob: 'x' } }, 'payload/blob'],
    ['an unknown phase', { payload: { phase: 'later' } }, 'payload/phase'],
    ['exit_code 1e308', { payload: { exit_code: 1e308 } }, 'payload/exit_code'],
  ])('%s is refused, naming the field', (_what, change, field) => {
    expect(check({ ...frame, ...change })).toMatchObject({ field });
  });
});

test('a layout tree is a recursive split of surfaces', () => {
  const { params } = PublicMethods['workspace.restore_layout'];
  const layout = { split: 'h', ratio: 0.5, children: [{ surface_id: 1 }, { split: 'v', ratio: 0.3, children: [{ surface_id: 2 }, { surface_id: 3 }] }] };
  expect(validate(params, { layout })).toBeNull();
  expect(validate(params, { layout: { split: 'h', ratio: 1.5, children: [{ surface_id: 1 }, { surface_id: 2 }] } })).toEqual({ field: 'layout/ratio', message: "'layout/ratio' must be < 1" });
  expect(validate(params, { layout: { split: 'x', ratio: 0.5, children: [] } })).toEqual({ field: 'layout/split', message: "'layout/split' must be equal to constant" });
});

test('events.subscribe refuses an unknown event type', () => {
  const { params } = PublicMethods['events.subscribe'];
  expect(validate(params, { types: ['status_changed', 'notification'] })).toBeNull();
  expect(validate(params, { types: ['status_changed', 'nonsense'] })).toMatchObject({ field: 'types/1' });
});

test('host frames are told apart by type', () => {
  expect(validate(HostFrame, { type: 'output', at_ms: 1, seq: 9, session: '6f1c2f3a-9b0e-4d7a-8c1e-2a3b4c5d6e7f', output_generation: 3 })).toBeNull();
  // No variant takes it; the problem named is the first variant's (a snapshot's).
  expect(validate(HostFrame, { type: 'bogus', at_ms: 1, seq: 1 })).toEqual({ field: 'sessions', message: "missing field 'sessions'" });
});
