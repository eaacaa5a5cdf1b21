import { UsageLimit, validate } from '@paneflow/protocol';
import { until } from '@paneflow/testing';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { killIfAlive, screenMatching, serveCli, startInstance, type EventStream, type Frame, type Instance } from './helpers';

const statusOf = (surface: number) => (f: Frame) => f.type === 'status_changed' && f.surface_id === surface;
const limitIn = (f: Frame) => (f.surface_status as { supervision?: { limit: UsageLimit | null } }).supervision?.limit ?? null;
const continueIs = (surface: number, state: string) => (f: Frame) => statusOf(surface)(f) && limitIn(f)?.continue === state;
const count = (text: string, needle: RegExp) => (text.match(needle) ?? []).length;

/**
 * Claude Code prints the reset to the minute (`resets 3:04pm (UTC)`), so a reset a few seconds
 * ahead is readable exactly only when it falls on a minute: the seconds from now to the next
 * minute that is at least `least` seconds away, and that minute.
 */
function toNextMinute(least: number): { seconds: number; minute: number } {
  const now = Date.now();
  let minute = Math.ceil(now / 60_000) * 60_000;
  if (minute - now < least * 1000) minute += 60_000;
  return { seconds: Math.ceil((minute - now) / 1000), minute };
}

async function agent(pf: Instance, name: string): Promise<{ events: EventStream; surface: number }> {
  const events = await pf.subscribe();
  const up = await pf.call('workspace.up', { name, layout: 'even_h', panes: [{ name, cwd: pf.dir, command: 'claude', focus: true, env: {} }] });
  const surface = up.surfaces[0].surface_id;
  await events.next((f) => statusOf(surface)(f) && f.reason === 'declared');
  return { events, surface };
}

async function restartServe(pf: Instance) {
  const old = pf.servePid;
  killIfAlive(old);
  await until(() => !existsSync(`/proc/${old}`) || readFileSync(`/proc/${old}/stat`, 'utf8').includes(') Z'), `serve ${old} gone`);
  const started = serveCli(pf.env, 'start');
  expect(started).toMatchObject({ code: 0 });
  pf.servePid = JSON.parse(started.stdout).pid;
}

describe('usage limits: the line, its reset, and the continue after it', () => {
  let on: Instance;
  let off: Instance;
  beforeAll(async () => {
    // Both would continue one second after the reset; only one is asked to.
    [on, off] = await Promise.all([
      startInstance({ scripting: true, orchestration: true, config: { supervisor: { continue_at_reset: true, continue_margin_secs: 1 } } }),
      startInstance({ scripting: true, config: { supervisor: { continue_at_reset: false, continue_margin_secs: 1 } } }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([on?.cleanup(), off?.cleanup()]);
  });

  test('one continue after the reset, kept through serve restarts (neither forgotten nor repeated), and none without the setting', async () => {
    const a = await agent(on, 'limited');
    const b = await agent(off, 'left');
    const c = await agent(on, 'unreadable');
    const d = await agent(on, 'leaving');
    const { seconds, minute } = toNextMinute(20);
    const markA = a.events.mark;
    const markB = b.events.mark;
    await on.call('surface.send_text', { surface_id: a.surface, text: `limit ${seconds}`, submit: true });
    await off.call('surface.send_text', { surface_id: b.surface, text: `limit ${seconds}`, submit: true });
    await on.call('surface.send_text', { surface_id: d.surface, text: `limit ${seconds}`, submit: true });
    // A limit line that names no reset: shown, never continued.
    await on.call('surface.send_text', { surface_id: c.surface, text: 'limit', submit: true });
    const seenC = await c.events.next((f) => statusOf(c.surface)(f) && limitIn(f) !== null);
    expect(limitIn(seenC)).toMatchObject({ line: "⎿  You've hit your monthly spend limit.", resets_at_ms: null, continue: 'unknown_reset' });

    const seenA = await a.events.next((f) => statusOf(a.surface)(f) && limitIn(f) !== null, markA);
    const limit = limitIn(seenA)!;
    expect(validate(UsageLimit, limit)).toBeNull();
    expect(limit).toMatchObject({ resets_at_ms: minute, continue: 'waiting' });
    expect(limit.line).toMatch(/^⎿ {2}You've hit your session limit · resets \d{1,2}(:\d\d)?\s?[ap]m \(.+\)$/i);
    expect(limit.resets_at_ms! - limit.seen_at_ms).toBeGreaterThan(5000);
    expect(seenA.state).toBe('errored');
    const seenB = await b.events.next((f) => statusOf(b.surface)(f) && limitIn(f) !== null, markB);
    expect(limitIn(seenB)).toMatchObject({ resets_at_ms: minute, continue: 'off' });
    const notice = await a.events.next((f) => f.type === 'notification' && f.surface_id === a.surface && f.kind === 'usage_limit', markA);
    expect(notice.body).toContain("You've hit your session limit");

    // A restart before the reset forgets nothing: the continue still goes, once.
    expect(Date.now()).toBeLessThan(minute - 3000);
    await d.events.next((f) => statusOf(d.surface)(f) && limitIn(f)?.continue === 'waiting');
    await restartServe(on);
    const after = await on.subscribe();
    // This one's agent leaves before the reset: its continue cannot start a turn, and the person hears so.
    await on.call('surface.send_text', { surface_id: d.surface, text: 'exit', submit: true });
    await after.next((f) => f.type === 'session_changed' && f.surface_id === d.surface && (f.row as { lifecycle: string }).lifecycle === 'exited');
    expect(Date.now()).toBeLessThan(minute);
    const started = await after.next(continueIs(a.surface, 'started'), 0, minute - Date.now() + 20_000);
    expect(started.at_ms).toBeGreaterThanOrEqual(minute + 1000);
    expect(after.frames.filter((f) => statusOf(a.surface)(f) && limitIn(f)?.continue === 'sent').length).toBeGreaterThanOrEqual(1);
    await after.next((f) => statusOf(a.surface)(f) && f.state === 'finished' && limitIn(f) === null);
    await after.next(continueIs(d.surface, 'not_started'));
    const notStarted = await after.next((f) => f.type === 'notification' && f.surface_id === d.surface);
    expect(notStarted).toMatchObject({ kind: 'continue_not_started', body: "Claude Code is no longer running here: nothing was sent after the usage limit's reset" });

    // Another restart does not send it again: a probe's turn comes and goes, and one continue is on the screen.
    await restartServe(on);
    const probe = await on.subscribe();
    await on.call('surface.send_text', { surface_id: a.surface, text: 'probe', submit: true });
    await probe.next((f) => statusOf(a.surface)(f) && f.state === 'finished');
    const screenA = await screenMatching(on, a.surface, /done: probe/);
    expect(count(screenA, /thinking about: continue/g)).toBe(1);
    const saved = JSON.parse(readFileSync(join(on.env.PANEFLOW_HOME!, 'serve', 'limits.json'), 'utf8'));
    expect(Object.values(saved.sessions)).toEqual(
      expect.arrayContaining([expect.objectContaining({ continue: 'started', cleared: true }), expect.objectContaining({ continue: 'unknown_reset', cleared: false })]),
    );
    // The pane whose line named no reset got nothing past A's continue, and still shows its limit.
    expect(count(await screenMatching(on, c.surface, /spend limit/), /thinking about: continue/g)).toBe(0);
    expect((await on.call('surface.status', { surface_id: c.surface })).supervision?.limit).toMatchObject({ continue: 'unknown_reset' });
    // The same text printed again by the next turn is a new limit, the one still on the screen above it is not.
    const markC = probe.mark;
    await on.call('surface.send_text', { surface_id: c.surface, text: 'limit', submit: true });
    const again = await probe.next((f) => statusOf(c.surface)(f) && f.state === 'errored' && limitIn(f) !== null, markC);
    expect(limitIn(again)!.seen_at_ms).toBeGreaterThan(limitIn(seenC)!.seen_at_ms);
    await probe.next((f) => f.type === 'notification' && f.surface_id === c.surface && f.kind === 'usage_limit', markC);

    // Without the setting: past the same reset and margin, nothing was sent, and the limit shows until a turn starts.
    expect((await off.call('surface.status', { surface_id: b.surface })).supervision?.limit).toMatchObject({ continue: 'off', resets_at_ms: minute });
    expect(count(await screenMatching(off, b.surface, /resets/), /thinking about: continue/g)).toBe(0);
    const markNext = b.events.mark;
    await off.call('surface.send_text', { surface_id: b.surface, text: 'next', submit: true });
    const next = await b.events.next((f) => statusOf(b.surface)(f) && f.state === 'thinking', markNext);
    expect(limitIn(next)).toBeNull();
    expect(b.events.frames.filter((f) => f.type === 'notification' && f.kind === 'usage_limit')).toHaveLength(1);
  }, 150_000);
});
