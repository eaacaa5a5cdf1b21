import { cliState, DETECTION_WINDOW_MS, newEntry, reduce, restoredEntry, type Agent, type Entry, type Input, type Notice } from '../src';
import type { DeclaredStatus as Declared } from '@paneflow/protocol';

const T0 = 1_767_225_600_000;
const claude: Agent = { runtimeId: 'claude-code', pid: 4242, startedAt: 9000, startedAtMs: T0 - 1000, identifiedAtMs: T0 - 500 };
const record = (state: Declared['state'], extra: Partial<Declared> = {}): Declared => ({
  state,
  kind: null,
  progress: null,
  id: null,
  app: 'claude-code',
  title: null,
  message: null,
  ...extra,
});
const base: Input = { record: null, running: true, agent: claude, lastSignalAtMs: T0 - 900, hook: { notificationMessage: null, lastResult: null }, nowMs: T0 };

/** Runs a sequence of inputs through one entry, collecting every notice. */
function run(steps: Array<Partial<Input>>, start: Entry = newEntry()) {
  let entry = start;
  const notices: Notice[] = [];
  const seqs: number[] = [];
  for (const step of steps) {
    const result = reduce(entry, { ...base, ...step });
    entry = result.entry;
    notices.push(...result.notices);
    seqs.push(entry.stateSeq);
  }
  return { entry, notices, seqs };
}

test('a declared turn runs busy and its done notifies Finished once', () => {
  const { entry, notices, seqs } = run([
    { record: record('idle') },
    { record: record('working') },
    { record: record('working', { progress: 40 }) },
    { record: record('done') },
    { record: record('done') },
  ]);
  expect(seqs).toEqual([0, 1, 1, 2, 2]);
  expect(notices).toEqual([{ kind: 'finished', body: null }]);
  expect(entry).toMatchObject({ status: 'idle', outcome: 'completed', unread: true });
});

test('the Finished body is the Stop hook last_result, else the declared message', () => {
  const withHook = run([{ record: record('working') }, { record: record('done', { message: 'Plan' }), hook: { notificationMessage: null, lastResult: 'Tests pass.' } }]);
  expect(withHook.notices).toEqual([{ kind: 'finished', body: 'Tests pass.' }]);
  const without = run([{ record: record('working') }, { record: record('done', { message: 'Plan' }) }]);
  expect(without.notices).toEqual([{ kind: 'finished', body: 'Plan' }]);
});

test('an idle after a turn settles without a notice', () => {
  const { notices, entry } = run([{ record: record('idle') }, { record: record('working') }, { record: record('idle') }]);
  expect(notices).toEqual([]);
  expect(entry).toMatchObject({ status: 'idle', unread: false, outcome: null });
});

test('a blocker asks for attention once, with its message', () => {
  const { notices, seqs, entry } = run([
    { record: record('working') },
    { record: record('blocked', { kind: 'permission', message: 'approve Bash: rm -rf build' }) },
    { record: record('blocked', { kind: 'permission', message: 'approve Bash: rm -rf build' }) },
  ]);
  expect(notices).toEqual([{ kind: 'needs_input', body: 'approve Bash: rm -rf build' }]);
  expect(seqs).toEqual([0, 1, 1]);
  expect(entry.status).toBe('attention');
});

test('a blocker without a message takes the latest hook notification text', () => {
  const { notices } = run([{ record: record('working') }, { record: record('blocked'), hook: { notificationMessage: 'Claude needs your permission', lastResult: null } }]);
  expect(notices).toEqual([{ kind: 'needs_input', body: 'Claude needs your permission' }]);
});

test('error is errored until the record goes, after exit too', () => {
  const { entry, notices } = run([
    { record: record('working') },
    { record: record('error', { message: 'quota exceeded' }) },
    { record: record('error', { message: 'quota exceeded' }), running: false },
  ]);
  expect(entry).toMatchObject({ status: 'errored', outcome: 'failed:quota exceeded' });
  expect(notices).toEqual([{ kind: 'error', body: 'quota exceeded' }]);
  expect(run([{ record: record('error') }, { record: null }]).entry.status).toBe('idle');
});

test('a failure message in the outcome is cut to 128 bytes on a character boundary', () => {
  const { entry } = run([{ record: record('error', { message: 'é'.repeat(100) }) }]);
  expect(entry.outcome).toBe('failed:' + 'é'.repeat(64));
});

test('an exited agent never holds busy or attention', () => {
  expect(run([{ record: record('working'), running: false }]).entry.status).toBe('idle');
  expect(run([{ record: record('blocked'), running: false }]).entry.status).toBe('idle');
  const { entry, notices } = run([{ record: record('working') }, { record: record('working'), running: false }]);
  expect(entry.status).toBe('idle');
  expect(notices).toEqual([]);
});

test('a session discovered mid-turn takes its state without a notice', () => {
  const blocked = run([{ record: record('blocked', { message: 'Apply?' }) }]);
  expect(blocked.entry).toMatchObject({ status: 'attention', stateSeq: 0 });
  expect(blocked.notices).toEqual([]);
  expect(run([{ record: record('error') }]).notices).toEqual([]);
});

test('a restored entry keeps its sequence; the rebuild is silent and counts only a real change', () => {
  const same = run([{ record: record('blocked') }], restoredEntry({ status: 'attention', stateSeq: 7, outcome: null, unread: false }));
  expect(same.entry).toMatchObject({ status: 'attention', stateSeq: 7 });
  expect(same.notices).toEqual([]);
  const moved = run([{ record: record('done') }], restoredEntry({ status: 'busy', stateSeq: 7, outcome: null, unread: false }));
  expect(moved.entry).toMatchObject({ status: 'idle', stateSeq: 8 });
  expect(moved.notices).toEqual([]);
});

test('a hook event carries metadata but never moves the declared state', () => {
  const before = run([{ record: record('working') }]);
  const after = reduce(before.entry, { ...base, record: record('working'), hook: { notificationMessage: 'x', lastResult: 'y' } });
  expect(after.entry).toEqual(before.entry);
  expect(after.notices).toEqual([]);
});

test('state_seq counts each reduced transition and nothing else', () => {
  const { seqs } = run([
    { record: record('idle') },
    { record: record('idle', { progress: null, title: 'x' }) }, // a repeated report
    { record: record('working') },
    { record: record('working', { progress: 10 }) },
    { record: record('working'), lastSignalAtMs: T0 }, // a scan, a signal
    { record: record('blocked') },
    { record: record('working') },
    { record: record('done') },
    { record: record('done'), agent: { ...claude } }, // the same agent seen again
  ]);
  expect(seqs).toEqual([0, 0, 1, 1, 1, 2, 3, 4, 4]);
});

test('a program that is not a known agent keeps its declared status on the row but never moves the status', () => {
  const { entry, notices, seqs } = run([
    { agent: null, record: record('working') },
    { agent: null, record: record('blocked', { message: 'Apply?' }) },
    { agent: null, record: record('error') },
  ]);
  expect(entry).toMatchObject({ status: 'idle', reason: 'no_agent' });
  expect(seqs).toEqual([0, 0, 0]);
  expect(notices).toEqual([]);
});

test('becoming busy again clears unread', () => {
  const done = run([{ record: record('working') }, { record: record('done') }]);
  expect(done.entry.unread).toBe(true);
  expect(run([{ record: record('working') }], done.entry).entry.unread).toBe(false);
});

describe('signal reasons (REFERENCE.md §3.3)', () => {
  const silent = { ...claude, startedAtMs: T0 - 10_000, identifiedAtMs: T0 - 1000 };
  test('no agent, declared, capable', () => {
    expect(run([{ agent: null }]).entry.reason).toBe('no_agent');
    expect(run([{ record: record('idle') }]).entry.reason).toBe('declared');
    expect(run([{ record: null }]).entry.reason).toBe('capable');
  });

  test('an agent that has said nothing is detecting for 3 s, then no_signal', () => {
    const input = { agent: silent, lastSignalAtMs: null };
    expect(run([{ ...input, nowMs: T0 }]).entry.reason).toBe('detecting');
    expect(run([{ ...input, nowMs: silent.identifiedAtMs + DETECTION_WINDOW_MS }]).entry.reason).toBe('no_signal');
  });

  test('a signal from before the agent started does not count for it', () => {
    expect(run([{ agent: silent, lastSignalAtMs: silent.startedAtMs - 5000, nowMs: T0 + 5000 }]).entry.reason).toBe('no_signal');
  });

  test('an agent that was capable never returns to no_signal; a new identity starts over', () => {
    const { entry } = run([{ agent: silent, lastSignalAtMs: T0, record: record('idle') }, { agent: silent, record: null, lastSignalAtMs: null, nowMs: T0 + 60_000 }]);
    expect(entry.reason).toBe('capable');
    const next = { ...silent, pid: 5151, identifiedAtMs: T0 + 60_000 };
    expect(run([{ agent: next, lastSignalAtMs: null, nowMs: T0 + 60_500 }], entry).entry.reason).toBe('detecting');
  });
});

describe('CLI states (REFERENCE.md §3.6)', () => {
  const options = { stalled: false };
  const stateOf = (steps: Array<Partial<Input>>, opts = options) => {
    const { entry } = run(steps);
    const last = { ...base, ...steps[steps.length - 1] };
    return cliState(entry, last.record, last.agent !== null, opts);
  };
  test.each([
    ['no agent', 'idle', [{ agent: null, record: record('working') }]],
    ['errored', 'errored', [{ record: record('error') }]],
    ['busy', 'thinking', [{ record: record('working') }]],
    ['attention', 'waiting_for_input', [{ record: record('blocked') }]],
    ['detecting', 'unknown_running', [{ lastSignalAtMs: null }]],
    ['done', 'finished', [{ record: record('done') }]],
    ['idle', 'idle', [{ record: record('idle') }]],
  ] as const)('%s is %s', (_name, state, steps) => {
    expect(stateOf([...steps])).toBe(state);
  });

  test('stalled exactly while the stall observation holds, and only while busy', () => {
    expect(stateOf([{ record: record('working') }], { stalled: true })).toBe('stalled');
    expect(stateOf([{ record: record('working') }], { stalled: false })).toBe('thinking');
    expect(stateOf([{ record: record('blocked') }], { stalled: true })).toBe('waiting_for_input');
    expect(stateOf([{ record: record('done') }], { stalled: true })).toBe('finished');
  });
});
