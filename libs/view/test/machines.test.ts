import type { MachineRow } from '@paneflow/protocol';
import { machineCellText, machineRowsAge, machineStateText } from '../src/machines';

const NOW = 1_800_000_000_000;
const row = (over: Partial<MachineRow> = {}): MachineRow => ({
  name: 'gpu1',
  destination: 'me@gpu1',
  state: 'connected',
  reason: null,
  since_ms: NOW - 5 * 60_000,
  last_seen_ms: NOW - 1000,
  agents: 2,
  remote: null,
  ...over,
});

test("a link's state says for how long, and why when it is not connected", () => {
  expect(machineStateText(row(), NOW)).toBe('connected 5m');
  expect(machineStateText(row({ state: 'offline', reason: 'Permission denied (publickey).', since_ms: NOW - 40_000 }), NOW)).toBe('offline 40s: Permission denied (publickey).');
  expect(machineStateText(row({ state: 'connecting', since_ms: NOW }), NOW)).toBe('connecting 0s');
});

test("a far machine's rows are live while connected; else its state and the age of what is shown", () => {
  expect(machineRowsAge(row(), NOW)).toBeNull();
  expect(machineRowsAge(row({ state: 'reconnecting', last_seen_ms: NOW - 40_000, since_ms: NOW - 10_000 }), NOW)).toBe('reconnecting 40s');
  expect(machineRowsAge(row({ state: 'offline', last_seen_ms: null, since_ms: NOW - 3 * 60_000 }), NOW)).toBe('offline 3m');
});

test("a row's machine cell: '-' here, the name there, its age while not connected", () => {
  const machines = [row(), row({ name: 'old', state: 'offline', last_seen_ms: NOW - 3 * 60_000 })];
  expect(machineCellText(null, machines, NOW)).toBe('-');
  expect(machineCellText(undefined, machines, NOW)).toBe('-');
  expect(machineCellText('gpu1', machines, NOW)).toBe('gpu1');
  expect(machineCellText('old', machines, NOW)).toBe('old (offline 3m)');
  expect(machineCellText('gone', machines, NOW)).toBe('gone');
});

test("what another machine said (ssh's stderr there) reaches no terminal as a control", () => {
  const text = machineStateText(row({ state: 'offline', reason: '\x1b]0;owned\x07\x1b[2Jgone\u202e' }), NOW);
  // eslint-disable-next-line no-control-regex -- what may not remain
  expect(text).not.toMatch(/[\x00-\x1f\x7f\u202e]/);
  expect(text).toContain('gone');
});
