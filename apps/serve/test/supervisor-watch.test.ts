import { Stall, validate } from '@paneflow/protocol';
import { screenMatching, startInstance, type Frame, type Instance } from './helpers';

/** A test-short threshold: two seconds, so CPU is sampled every half second once output, hooks and records are quiet. */
const THRESHOLD_SECS = 2;

const statusOf = (surface: number) => (f: Frame) => f.type === 'status_changed' && f.surface_id === surface;
const stateOf = (surface: number, state: string) => (f: Frame) => statusOf(surface)(f) && f.state === state;
const stallIn = (f: Frame) => (f.surface_status as { supervision?: { stalled: Stall | null } }).supervision?.stalled ?? null;

async function agents(pf: Instance, names: string[]) {
  const events = await pf.subscribe();
  const up = await pf.call('workspace.up', { name: 'watch', layout: 'even_h', panes: names.map((name, i) => ({ name, cwd: pf.dir, command: 'claude', focus: i === 0, env: {} })) });
  const surfaces = up.surfaces.map((s) => s.surface_id);
  for (const surface of surfaces) await events.next((f) => statusOf(surface)(f) && f.reason === 'declared');
  return { events, surfaces };
}

describe('stalls: working, yet no output, CPU, hook or record for the threshold', () => {
  let pf: Instance;
  beforeAll(async () => {
    pf = await startInstance({ scripting: true, config: { agent_stall_threshold_secs: THRESHOLD_SECS } });
  });
  afterAll(() => pf.cleanup());

  test('a silent agent is flagged with its facts, notified once, and cleared by its output; one that burns CPU or prints is not', async () => {
    const { events, surfaces } = await agents(pf, ['silent', 'spinner', 'talker']);
    const [silent, spinner, talker] = surfaces;
    const mark = events.mark;
    await pf.call('surface.send_text', { surface_id: silent, text: 'stall', submit: true });
    await pf.call('surface.send_text', { surface_id: spinner, text: `spin ${THRESHOLD_SECS * 3000}`, submit: true });
    await pf.call('surface.send_text', { surface_id: talker, text: `talk ${THRESHOLD_SECS * 3000}`, submit: true });
    const thinking = await events.next(stateOf(silent, 'thinking'), mark);

    const flagged = await events.next(stateOf(silent, 'stalled'), mark);
    const stall = stallIn(flagged)!;
    expect(validate(Stall, stall)).toBeNull();
    expect(stall).toMatchObject({ threshold_ms: THRESHOLD_SECS * 1000, last_hook_ms: null, nudged_at_ms: null });
    // Every fact is at least the threshold old when it is flagged; CPU was read (this host has session.cpu).
    for (const seen of [stall.last_output_ms!, stall.last_record_ms!, stall.last_cpu_ms!]) expect(stall.since_ms - seen).toBeGreaterThanOrEqual(THRESHOLD_SECS * 1000);
    expect(stall.last_record_ms).toBeGreaterThanOrEqual(thinking.at_ms - 1000);
    const notice = await events.next((f) => f.type === 'notification' && f.surface_id === silent && f.kind === 'stalled', mark);
    expect(notice.body).toMatch(/^working, yet no output, no CPU, hook or record for 2 s$/);
    // The status object says it too, while it holds.
    const [status] = (await pf.call('fleet.list', {})).agents.filter((a) => a.surface_id === silent);
    expect(status).toMatchObject({ state: 'stalled', supervision: { stalled: stall } });

    // Any output clears it: a key makes the fixture print `resumed` while it still declares working.
    const beforeClear = events.mark;
    await pf.call('surface.send_text', { surface_id: silent, text: 'x' });
    const cleared = await events.next(statusOf(silent), beforeClear);
    expect(cleared).toMatchObject({ state: 'thinking' });
    expect(stallIn(cleared)).toBeNull();
    await events.next(stateOf(silent, 'finished'), beforeClear);

    // The spinner and the talker ended their turns after three thresholds without a flag.
    await events.next(stateOf(spinner, 'finished'), mark);
    await events.next(stateOf(talker, 'finished'), mark);
    await screenMatching(pf, spinner, /^spun$/m);
    const frames = events.frames.slice(mark);
    expect(frames.filter((f) => (f.surface_id === spinner || f.surface_id === talker) && (f.state === 'stalled' || f.kind === 'stalled'))).toEqual([]);
    expect(frames.filter((f) => f.type === 'notification' && f.kind === 'stalled')).toHaveLength(1);
    // Without nudge_stalled nothing was typed: the fixture was never interrupted.
    expect(await screenMatching(pf, silent, /resumed/)).not.toMatch(/Interrupted/);
  }, 60_000);
});

describe('the nudge (supervisor.nudge_stalled): the runtime’s own, once per stall', () => {
  let pf: Instance;
  beforeAll(async () => {
    pf = await startInstance({ scripting: true, config: { agent_stall_threshold_secs: THRESHOLD_SECS, supervisor: { nudge_stalled: true } } });
  });
  afterAll(() => pf.cleanup());

  test('Esc interrupts the stalled turn, then "continue" starts the next, and the stall says when', async () => {
    const { events, surfaces } = await agents(pf, ['nudged']);
    const [surface] = surfaces;
    const mark = events.mark;
    await pf.call('surface.send_text', { surface_id: surface, text: 'stall', submit: true });
    const flagged = await events.next(stateOf(surface, 'stalled'), mark);
    const nudged = await events.next((f) => statusOf(surface)(f) && stallIn(f)?.nudged_at_ms != null, mark);
    expect(stallIn(nudged)!.nudged_at_ms).toBeGreaterThanOrEqual(stallIn(flagged)!.since_ms);
    // Claude Code's nudge from its runtime.toml: Esc (the turn ends idle), then the prompt, submitted.
    await events.next((f) => stateOf(surface, 'idle')(f) && f.at_ms >= nudged.at_ms, mark);
    await events.next(stateOf(surface, 'finished'), mark);
    const screen = await screenMatching(pf, surface, /done: continue/);
    expect(screen).toMatch(/Interrupted[\s\S]*thinking about: continue/);
    expect(screen.match(/thinking about: continue/g)).toHaveLength(1);
  }, 60_000);
});
