import { HostFrame, HostMethods, PublicMethods, validate, type MethodTable } from '../src';

describe.each([
  ['host', HostMethods],
  ['public', PublicMethods],
] as const)('the %s protocol', (_name, methods) => {
  test.each(Object.keys(methods))('%s: params refuse an unknown field', (name) => {
    const spec = (methods as MethodTable)[name];
    expect(validate(spec.params, { __not_a_field: 1 })).toMatchObject({ message: expect.stringMatching(/unknown field|missing field/) });
  });
});

test('a hook frame as REFERENCE.md §7.1 shows it is valid ai.stop params', () => {
  const params = {
    tool: 'claude',
    session: '6f1c2f3a-9b0e-4d7a-8c1e-2a3b4c5d6e7f',
    surface_id: 7,
    workspace_id: '0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9',
    pid: 4242,
    emitted_at_ms: 1767225600000,
    payload: { session_id: '…', last_result: 'Tests pass.', transcript_path: '/home/me/.claude/projects/x.jsonl' },
  };
  expect(validate(PublicMethods['ai.stop'].params, params)).toBeNull();
});

test('a layout tree is a recursive split of surfaces', () => {
  const { params } = PublicMethods['workspace.restore_layout'];
  const layout = { split: 'h', ratio: 0.5, children: [{ surface_id: 1 }, { split: 'v', ratio: 0.3, children: [{ surface_id: 2 }, { surface_id: 3 }] }] };
  expect(validate(params, { layout })).toBeNull();
  expect(validate(params, { layout: { split: 'h', ratio: 1.5, children: [{ surface_id: 1 }, { surface_id: 2 }] } })).not.toBeNull();
  expect(validate(params, { layout: { split: 'x', ratio: 0.5, children: [] } })).not.toBeNull();
});

test('events.subscribe refuses an unknown event type', () => {
  const { params } = PublicMethods['events.subscribe'];
  expect(validate(params, { types: ['status_changed', 'notification'] })).toBeNull();
  expect(validate(params, { types: ['status_changed', 'nonsense'] })).toMatchObject({ field: 'types/1' });
});

test('host frames are told apart by type', () => {
  expect(validate(HostFrame, { type: 'output', at_ms: 1, seq: 9, session: '6f1c2f3a-9b0e-4d7a-8c1e-2a3b4c5d6e7f', output_generation: 3 })).toBeNull();
  expect(validate(HostFrame, { type: 'bogus', at_ms: 1 })).not.toBeNull();
});
