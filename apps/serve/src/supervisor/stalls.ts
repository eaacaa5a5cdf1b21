import { ErrorCode, inTurn, RpcError, SUBMIT_CONFIRM_MS, type Stall } from '@paneflow/protocol';
import type { Timer } from '../clock';
import type { ServeContext } from '../context';
import type { Sending } from '../sending';
import type { Reduction } from '../status';
import type { View } from '../views';

/** CPU is sampled at most this often (and at a quarter of the threshold when that is shorter). */
const CPU_CADENCE_MAX_MS = 60_000;

interface Watch {
  timer: Timer | null;
  /** The last reading of the tree's CPU time, and when the next may be taken. */
  cpu: number | null;
  nextSampleAt: number;
  sampling: boolean;
  /** The last sample that showed CPU used since the one before (the first counts: before it is unknown). */
  lastCpuMs: number | null;
  /** The host has no `session.cpu` (an older host): the stall rests on the other facts. */
  cpuUnknown: boolean;
}

/**
 * The stall observation (issue 33): an agent that declares working, yet for the threshold
 * (`agent_stall_threshold_secs`) printed nothing, used no CPU, and sent no hook or record. Only a
 * busy agent is watched, so an idle pane costs no wake-up; its CPU is sampled from the host only
 * once the other facts have been quiet for the cadence. Flagged once, notified once, cleared by
 * any of them; with `supervisor.nudge_stalled` the runtime's `[supervisor]` nudge goes once.
 */
export class Stalls {
  private readonly watches = new Map<string, Watch>();
  /** Called when a stall is flagged (the usage-limit part looks at the screen then). */
  onFlag: (view: View) => void = () => undefined;

  constructor(
    private readonly ctx: ServeContext,
    private readonly reduction: Reduction,
    private readonly sending: Sending,
  ) {
    reduction.follow((view) => this.check(view));
    reduction.addSupervision((view) => ({ stalled: view.entry.status === 'busy' ? view.stalled : null }));
  }

  private check(view: View): void {
    const now = this.ctx.clock.now();
    const thresholdMs = Math.round(this.ctx.config.current.agent_stall_threshold_secs * 1000);
    const watching = thresholdMs > 0 && view.entry.status === 'busy' && view.agent !== null && view.lifecycle === 'live' && this.ctx.views.get(view.session) === view;
    let watch = this.watches.get(view.session);
    if (!watching) {
      this.ctx.clock.clearTimeout(watch?.timer);
      this.watches.delete(view.session);
      if (view.stalled) this.clear(view);
      return;
    }
    if (!watch) this.watches.set(view.session, (watch = { timer: null, cpu: null, nextSampleAt: 0, sampling: false, lastCpuMs: null, cpuUnknown: false }));
    const lastOther = lastSignOfLife(view);
    const stall = view.stalled;
    if (stall && (lastOther > lastSeenAtFlag(stall, view) || (watch.lastCpuMs ?? 0) > stall.since_ms)) this.clear(view);
    const cadence = Math.min(CPU_CADENCE_MAX_MS, thresholdMs / 4);
    const cpuQuietSince = watch.cpuUnknown ? 0 : watch.lastCpuMs;
    if (!view.stalled && cpuQuietSince !== null && now - Math.max(lastOther, cpuQuietSince) >= thresholdMs) this.flag(view, watch, thresholdMs, now);
    this.ctx.clock.clearTimeout(watch.timer);
    watch.timer = null;
    const sampleAt = watch.cpuUnknown ? Infinity : Math.max(lastOther + cadence, watch.nextSampleAt);
    if (sampleAt <= now) return this.sample(view, watch, cadence);
    const flagAt = view.stalled || cpuQuietSince === null ? Infinity : Math.max(lastOther, cpuQuietSince) + thresholdMs;
    const at = Math.min(sampleAt, flagAt);
    if (at !== Infinity) watch.timer = this.ctx.clock.setTimeout(() => this.check(view), Math.max(0, at - now) + 1);
  }

  /** One reading of the tree's CPU time from the host; a change since the last is a sign of life. */
  private sample(view: View, watch: Watch, cadence: number): void {
    if (watch.sampling) return;
    watch.sampling = true;
    this.ctx.host.request('session.cpu', { session: view.session }).then(
      ({ cpu_ms }) => {
        const now = this.ctx.clock.now();
        if (watch.cpu === null || watch.cpu !== cpu_ms) watch.lastCpuMs = now;
        watch.cpu = cpu_ms;
        watch.nextSampleAt = now + cadence;
      },
      (error: Error) => {
        if (error instanceof RpcError && error.code === ErrorCode.MethodNotFound) {
          watch.cpuUnknown = true;
          this.ctx.log(`stalls: the host has no session.cpu; stalls of ${view.session} rest on output, hooks and records`);
        } else watch.nextSampleAt = this.ctx.clock.now() + cadence;
      },
    ).finally(() => {
      watch.sampling = false;
      if (this.watches.get(view.session) === watch) this.check(view);
    });
  }

  private flag(view: View, watch: Watch, thresholdMs: number, now: number): void {
    const stall: Stall = {
      since_ms: now,
      threshold_ms: thresholdMs,
      last_output_ms: view.lastActivityMs,
      last_cpu_ms: watch.cpuUnknown ? null : watch.lastCpuMs,
      last_hook_ms: view.lastHookMs,
      last_record_ms: view.lastSignalAtMs,
      nudged_at_ms: null,
    };
    view.stalled = stall;
    this.reduction.announce(view);
    const cpu = watch.cpuUnknown ? 'no hook or record (CPU unknown: the host is older)' : 'no CPU, hook or record';
    this.reduction.notice(view, { kind: 'stalled', body: `working, yet no output, ${cpu} for ${seconds(thresholdMs)}` });
    this.onFlag(view);
    if (this.ctx.config.current.supervisor.nudge_stalled) void this.nudge(view, stall);
  }

  private clear(view: View): void {
    view.stalled = null;
    this.reduction.announce(view);
  }

  /** The runtime's own nudge (`[supervisor]` in runtime.toml), once per stall. */
  private async nudge(view: View, stall: Stall): Promise<void> {
    const nudge = view.agent ? this.ctx.catalog.bySlug.get(view.agent.runtimeId)?.supervisor : undefined;
    const pane = this.ctx.model.paneBySession(view.session);
    if (!pane || !nudge || (!nudge.nudge_keys?.length && !nudge.nudge_prompt)) return;
    stall.nudged_at_ms = this.ctx.clock.now();
    this.reduction.announce(view);
    try {
      if (nudge.nudge_keys?.length) {
        const leftTurn = this.whenOutOfTurn(view);
        await this.sending.supervisorKeys(view.session, nudge.nudge_keys);
        // The keys interrupt the turn; the prompt goes once the agent says it is no longer in one.
        if (nudge.nudge_prompt) await leftTurn;
        else leftTurn.cancel();
      }
      if (nudge.nudge_prompt) await this.sending.supervisorSubmit(pane.surface_id, nudge.nudge_prompt);
    } catch (error) {
      this.ctx.log(`stalls: nudging ${view.session}: ${(error as Error).message}`);
    }
  }

  /** Resolves when the session's state leaves its turn, or after SUBMIT_CONFIRM_MS (then the busy guard decides). */
  private whenOutOfTurn(view: View): Promise<void> & { cancel: () => void } {
    let stop = () => undefined as void;
    let timer: Timer | undefined;
    const promise = new Promise<void>((resolve) => {
      const done = () => {
        stop();
        this.ctx.clock.clearTimeout(timer);
        resolve();
      };
      stop = this.reduction.watch(view.session, (change) => {
        if (!inTurn(change.state)) done();
      });
      timer = this.ctx.clock.setTimeout(done, SUBMIT_CONFIRM_MS);
    });
    return Object.assign(promise, {
      cancel: () => {
        stop();
        this.ctx.clock.clearTimeout(timer);
      },
    });
  }
}

/** The newest of a session's output, hook and record times. */
const lastSignOfLife = (view: View) => Math.max(view.lastActivityMs ?? 0, view.lastHookMs ?? 0, view.lastSignalAtMs ?? 0, view.generationStartedAtMs);

/** The same, as they were when the stall was flagged. */
const lastSeenAtFlag = (stall: Stall, view: View) => Math.max(stall.last_output_ms ?? 0, stall.last_hook_ms ?? 0, stall.last_record_ms ?? 0, view.generationStartedAtMs);

const seconds = (ms: number) => (ms >= 120_000 ? `${Math.round(ms / 60_000)} min` : `${Math.round(ms / 1000)} s`);
