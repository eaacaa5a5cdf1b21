import { encode } from '@paneflow/osc7501';
import { CLOCK_START_MS } from './fake-clock';
import { startInProcess, type InProcess } from './harness';

// The stall observation (apps/serve supervisor/stalls.ts) in process: a working agent with no
// output, CPU, hook or record for the threshold is flagged, on serve's clock — a minute of it
// passes in milliseconds. The process tests (supervisor-watch.test.ts) keep the CPU of a real tree.

const CLAUDE = 'claude-code';
const THRESHOLD_MS = 60_000;
/** The CPU is read once the other facts have been quiet a quarter of the threshold. */
const CADENCE_MS = THRESHOLD_MS / 4;
let serve: InProcess;

afterEach(async () => {
  await serve?.stop();
});

async function workingAgent() {
  serve = await startInProcess({ config: { agent_stall_threshold_secs: THRESHOLD_MS / 1000 }, sessions: [{ agent: CLAUDE, name: 'slow' }] });
  const [session] = serve.sessions;
  const surface = await serve.surfaceOf(session);
  const events = await serve.subscribe();
  serve.host.print(session, encode({ state: 'working' }));
  await events.next((f) => f.type === 'status_changed' && f.state === 'thinking');
  return { session, surface, events };
}

const cpuReads = () => serve.host.requests.filter((r) => r.method === 'session.cpu').map((r) => r.at_ms);
const stalledFrames = (frames: Array<Record<string, unknown>>) => frames.filter((f) => f.type === 'status_changed' && f.state === 'stalled');

test('a working agent that prints nothing, uses no CPU and sends nothing is flagged stalled a threshold after its last sign of life, once; output clears it', async () => {
  const { session, surface, events } = await workingAgent();
  await serve.clock.advance(CADENCE_MS + 1);
  // The first reading of the tree's CPU time counts as a sign of life: nothing is known before it.
  const [firstRead] = cpuReads();
  expect(firstRead).toBe(CLOCK_START_MS + CADENCE_MS + 1);

  await serve.clock.advance(firstRead + THRESHOLD_MS - 1 - serve.clock.now());
  // The host's rescan finds the same agent: serve looks again, and a millisecond short is not a stall.
  serve.host.observe(session, CLAUDE);
  await events.next((f) => f.type === 'session_changed' && f.session === session);
  expect(stalledFrames(events.frames)).toEqual([]);
  expect((await serve.call('fleet.list', {})).agents[0]).toMatchObject({ state: 'thinking', supervision: { stalled: null } });

  await serve.clock.advance(2);
  const stalled = await events.next((f) => f.type === 'status_changed' && f.state === 'stalled');
  const flaggedAt = stalled.at_ms;
  expect(flaggedAt - firstRead).toBeGreaterThanOrEqual(THRESHOLD_MS);
  expect(stalled).toMatchObject({
    surface_id: surface,
    status: 'busy',
    surface_status: {
      supervision: { stalled: { since_ms: flaggedAt, threshold_ms: THRESHOLD_MS, last_output_ms: CLOCK_START_MS, last_cpu_ms: firstRead, last_hook_ms: null, last_record_ms: CLOCK_START_MS, nudged_at_ms: null } },
    },
  });
  expect(await events.next((f) => f.type === 'notification')).toEqual({
    type: 'notification',
    at_ms: flaggedAt,
    surface_id: surface,
    session,
    kind: 'stalled',
    title: 'slow',
    body: 'working, yet no output, no CPU, hook or record for 60 s',
  });

  // Flagged once: another quiet minute says nothing more.
  await serve.clock.advance(THRESHOLD_MS);
  expect(stalledFrames(events.frames)).toHaveLength(1);
  expect(events.frames.filter((f) => f.type === 'notification')).toHaveLength(1);

  const mark = events.mark;
  serve.host.print(session, 'compiling…\n');
  expect(await events.next((f) => f.type === 'status_changed', mark)).toMatchObject({ state: 'thinking', surface_status: { supervision: { stalled: null } } });
});

test('CPU used between readings is a sign of life: an agent that only computes is never flagged', async () => {
  const { session, events } = await workingAgent();
  for (let cpu = 1; cpu <= 20; cpu++) {
    serve.host.cpu(session, cpu * 1000);
    await serve.clock.advance(CADENCE_MS);
  }
  expect(cpuReads().length).toBeGreaterThanOrEqual(19);
  expect(serve.clock.now() - CLOCK_START_MS).toBe(5 * THRESHOLD_MS);
  expect(stalledFrames(events.frames)).toEqual([]);
  expect((await serve.call('fleet.list', {})).agents[0]).toMatchObject({ state: 'thinking' });
});
