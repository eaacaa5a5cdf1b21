import type { EventFrame, MachineRow, StatusObject } from '@paneflow/protocol';
import { status } from './status-fixture';
import { FarMachines, farTerminalText, frameMachine, machineLinkText, noticeText, paneKey } from '../src';

const agent = (over: Partial<StatusObject>): StatusObject => status({ machine: null, surface_name: 'lead', ...over });
const link = (over: Partial<MachineRow>): MachineRow => ({ name: 'devbox', destination: 'devbox', state: 'connected', reason: null, since_ms: 0, last_seen_ms: 0, agents: 1, remote: null, ...over });

describe('other machines', () => {
  test('a far pane is keyed by its machine and id: the same id on two machines is two rows, this machine’s rows are left to the picture', () => {
    expect(paneKey(null, 7)).toBe('7');
    expect(paneKey('devbox', 7)).toBe('devbox:7');
    const far = new FarMachines();
    far.load([agent({ surface_id: 1 }), agent({ surface_id: 1, machine: 'devbox' }), agent({ surface_id: 1, machine: 'gpu' })], [link({}), link({ name: 'gpu' })]);
    expect([...far.agents.keys()].sort()).toEqual(['devbox:1', 'gpu:1']);
    expect(far.grouped().map((g) => [g.link.name, g.agents.map((a) => a.machine)])).toEqual([
      ['devbox', ['devbox']],
      ['gpu', ['gpu']],
    ]);
  });

  test('far frames change only their machine’s agent; a newer status is kept; a closed pane goes; a link’s frame asks for a whole read', () => {
    const far = new FarMachines();
    far.load([agent({ surface_id: 3, machine: 'devbox', revision: 5 })], [link({})]);
    const changed = (surface: Partial<StatusObject>, machine: string | undefined) =>
      ({ type: 'status_changed', at_ms: 1, surface_id: 3, session: surface.session ?? agent({}).session, machine, state_seq: 1, status: 'attention', state: 'waiting_for_input', reason: 'declared', outcome: null, unread: false, surface_status: agent({ surface_id: 3, ...surface }) }) as EventFrame;
    expect(far.apply(changed({ revision: 4, state: 'waiting_for_input' }, 'devbox'))).toBe('none');
    expect(far.apply(changed({ revision: 6, state: 'waiting_for_input' }, 'devbox'))).toBe('agents');
    expect(far.get('devbox', 3)).toMatchObject({ state: 'waiting_for_input', machine: 'devbox' });
    // This machine's frame is not a far one.
    expect(frameMachine(changed({}, undefined))).toBeNull();
    expect(far.apply(changed({ revision: 9 }, undefined))).toBe('none');
    expect(far.apply({ type: 'surface_closed', at_ms: 1, surface_id: 3, session: agent({}).session, machine: 'devbox', workspace: 0 } as EventFrame)).toBe('agents');
    expect(far.agents.size).toBe(0);
    expect(far.apply({ type: 'machine_changed', at_ms: 1, machine: link({ state: 'reconnecting' }) })).toBe('links');
    expect(far.links.get('devbox')?.state).toBe('reconnecting');
  });

  test('a link is worded only when not connected, with ssh’s reason cleaned and the age of its rows', () => {
    expect(machineLinkText(link({}), 1000)).toBeNull();
    expect(machineLinkText(link({ state: 'reconnecting', reason: 'ssh: connect to host devbox port 22: Connection refused\x1b[2J', since_ms: 113_000, last_seen_ms: 0 }), 125_000)).toBe(
      'devbox — reconnecting 12s: ssh: connect to host devbox port 22: Connection refused^[[2J · as of 2m ago',
    );
    expect(machineLinkText(link({ state: 'offline', reason: null, last_seen_ms: null }), 1000)).toBe('devbox — offline 1s · never reached');
    expect(farTerminalText('devbox')).toBe('on devbox — use `paneflow attach --machine devbox`');
    expect(noticeText('needs_input', 'lead', undefined, 'Apply?', 'devbox').title).toBe('Needs input: lead on devbox');
  });
});
