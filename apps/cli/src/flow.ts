import { fillCaptures, parseFlow, type FlowPlan, type PanePlan, type StepPlan } from '@paneflow/spec';
import type { EventType } from '@paneflow/protocol/events';
import { ensureInstance, request, serveStatus, instanceEndpoints } from './instance';
import { idleCheck, matchingLine } from './wait';
import { waitUntil } from './watching';
import { CliError } from './errors';
import { printJson } from './output';
import { provisionWorktree } from './provision';
import { localPane, resolveOne } from './select';
import type { Scope } from '@paneflow/protocol/wire';
import { sendToPane } from './send';
import { realSpecHost } from './spec-host';
import { checkGates, paneRequest, readSpec, specError, withPorts } from './up';

type StepStatus = 'pending' | 'running' | 'done' | 'failed' | 'timeout' | 'skipped' | 'cancelled';

interface StepState {
  plan: StepPlan;
  status: StepStatus;
  surfaceId: number | null;
  error: string | null;
  /** What its failure means for the flow's exit: 4 a barrier timeout, 3 an unresolved target, else 1. */
  exitCode: number;
}


class StepFailure extends Error {
  constructor(
    message: string,
    readonly status: 'failed' | 'timeout',
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

/** `wait --idle`'s default timeout (REFERENCE.md §4.6), for a send step with no timeout of its own or by default. */
const IDLE_TIMEOUT_SECS = 300;

const progress = (message: string) => process.stderr.write(`flow: ${message}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Ready for input, as serve judges it (REFERENCE.md §5.2). */
async function agentReady(surfaceId: number): Promise<void> {
  await request('surface.wait_ready', { surface_id: surfaceId });
}

/** As `wait --idle`: a declaring agent not busy; anything else quiet for a second. */
async function paneIdle(surfaceId: number, timeoutMs: number): Promise<boolean> {
  const idle = idleCheck(1000);
  return (await waitUntil(paneEvents(surfaceId), () => idle({ surface_id: surfaceId }), { timeoutMs })) !== null;
}

const paneEvents = (surfaceId: number): { surfaces: number[]; types: EventType[] } => ({ surfaces: [surfaceId], types: ['surface_changed', 'status_changed'] });

/**
 * A ready barrier, by the rules of `wait --pattern` (REFERENCE.md §4.6, §5.7): the pattern, line
 * by line, over the pane's last 200 lines — what is on screen already counts, so the screen is
 * checked first, then again on every output event; then the capture, the last `lines` lines of
 * the pane with trailing blank lines removed.
 */
async function readyAndCapture(state: StepState): Promise<string | null> {
  const { ready, capture } = state.plan;
  if (!ready) return null;
  const regex = new RegExp(ready.pattern);
  const surfaceId = state.surfaceId!;
  const matched = await waitUntil(paneEvents(surfaceId), async () => ((await matchingLine({ surface_id: surfaceId }, regex)) !== null ? true : null), {
    timeoutMs: ready.timeout_secs * 1000,
  });
  if (!matched) throw new StepFailure(`ready: /${ready.pattern}/ did not appear within ${ready.timeout_secs} s`, 'timeout', 4);
  if (!capture) return null;
  const { text } = await request('surface.read', { surface_id: surfaceId, lines: capture.lines + 200, fenced: false });
  const lines = text.split('\n');
  while (lines.length > 0 && lines[lines.length - 1].trim() === '') lines.pop();
  return lines.slice(-capture.lines).join('\n');
}

/** The flow's runner: the DAG of REFERENCE.md §5.7 over a real instance. */
class Runner {
  readonly states: StepState[];
  readonly captures = new Map<string, string | Record<string, string>>();
  private workspace: { index: number; id: string } | null = null;
  private stopped = false;

  constructor(
    private readonly plan: FlowPlan,
    private readonly scope: Scope,
  ) {
    this.states = plan.steps.map((step) => ({ plan: step, status: 'pending', surfaceId: null, error: null, exitCode: 0 }));
  }

  private state(id: string): StepState | undefined {
    return this.states.find((s) => s.plan.id === id);
  }

  cancel() {
    this.stopped = true;
    for (const state of this.states) if (state.status === 'running' || state.status === 'pending') state.status = 'cancelled';
  }

  /** REFERENCE.md §5.7: 0 all done; 4 a barrier timed out; 3 a send target did not resolve; else 1. */
  exitCode(): number {
    if (this.states.every((s) => s.status === 'done')) return 0;
    const codes = this.states.map((s) => s.exitCode);
    return codes.includes(4) ? 4 : codes.includes(3) ? 3 : 1;
  }

  async run(): Promise<number> {
    const warnings: string[] = [];
    const panes = await withPorts(this.plan.steps.filter((s) => s.pane).map((s) => s.pane!), this.plan.port_base);
    const paneOf = new Map(this.plan.steps.filter((s) => s.pane).map((s, i) => [s.id, panes[i]] as const));
    for (const pane of panes) if (pane.worktree) warnings.push(...(await provisionWorktree(pane.worktree)));
    for (const warning of warnings) progress(`warning: ${warning}`);

    // Root pane steps together, in one workspace.up: the flow's workspace.
    const roots = this.states.filter((s) => s.plan.kind === 'pane' && s.plan.needs.length === 0);
    const up = await request('workspace.up', {
      name: this.plan.name,
      layout: this.plan.layout,
      panes: roots.map((s) => paneRequest(this.spawnable(s, paneOf.get(s.plan.id)!))),
    });
    this.workspace = { index: up.workspace.index, id: up.workspace.id };
    roots.forEach((s, i) => (s.surfaceId = up.surfaces[i].surface_id));
    progress(`workspace ${up.workspace.name} (${up.workspace.index}) with ${roots.length} pane(s)`);

    const running = new Map<string, Promise<void>>();
    for (const root of roots) running.set(root.plan.id, this.runStep(root, paneOf.get(root.plan.id)!));
    while (!this.stopped) {
      for (const state of this.states) {
        if (state.status !== 'pending' || running.has(state.plan.id)) continue;
        const deps = state.plan.needs.map((id) => this.state(id)!);
        if (deps.some((d) => d.status === 'failed' || d.status === 'timeout' || d.status === 'skipped' || d.status === 'cancelled')) {
          state.status = 'skipped';
          state.error = `a step it needs did not finish (${deps.filter((d) => d.status !== 'done').map((d) => d.plan.id).join(', ')})`;
          progress(`${state.plan.id}: skipped`);
          continue;
        }
        if (deps.every((d) => d.status === 'done')) running.set(state.plan.id, this.runStep(state, paneOf.get(state.plan.id) ?? null));
      }
      const active = [...running.entries()].filter(([id]) => this.state(id)!.status === 'running' || this.state(id)!.status === 'pending');
      if (active.length === 0 && !this.states.some((s) => s.status === 'pending' && s.plan.needs.every((id) => this.state(id)!.status === 'done'))) break;
      await Promise.race(active.map(([, p]) => p));
    }
    await Promise.allSettled(running.values());
    return this.exitCode();
  }

  /** A pane step's pane, prompt held back when the step will submit it itself. */
  private spawnable(state: StepState, pane: PanePlan): PanePlan {
    return state.plan.submit ? { ...pane, prompt: null } : pane;
  }

  /**
   * A flow's writes come from its own workspace: serve's scope check passes them with scripting
   * alone for its own panes, and wants orchestration only for a pane elsewhere (`--scope all`).
   */
  private writeOrigin() {
    return { scope: 'workspace' as const, workspaceId: this.workspace!.id, origin: 'flow' as const };
  }

  private async runStep(state: StepState, pane: PanePlan | null): Promise<void> {
    state.status = 'running';
    progress(`${state.plan.id}: started`);
    try {
      if (state.plan.kind === 'pane') {
        if (state.surfaceId === null) {
          const first = this.states.find((s) => s.surfaceId !== null)!;
          // A split takes no focus of its own: the new pane is focused as it is made.
          const { focus: _focus, ...spawn } = paneRequest(this.spawnable(state, pane!));
          const split = await request('surface.split', { direction: 'h', surface_id: first.surfaceId!, ...spawn });
          state.surfaceId = split.surface_id;
        }
        if (pane!.agent) await agentReady(state.surfaceId);
        if (state.plan.submit && pane!.prompt) {
          const { confirmed } = await sendToPane({ surface_id: state.surfaceId }, fillCaptures(pane!.prompt, this.captures), { submit: true, force: false, ...this.writeOrigin() });
          if (confirmed === false) throw new StepFailure('the agent did not start its turn (not_started)', 'failed');
        }
      } else {
        const send = state.plan.send!;
        const own = this.state(send.target);
        if (own) state.surfaceId = own.surfaceId;
        else {
          try {
            // A selector names a pane of the flow's workspace (`--scope all`: any), not the caller's.
            state.surfaceId = localPane(await resolveOne(send.target, { scope: this.scope }, this.workspace!.id), 'a flow');
          } catch (error) {
            throw new StepFailure(`send.target: ${(error as Error).message}`, 'failed', error instanceof CliError ? error.exitCode : 1);
          }
        }
        // Within the step's timeout (its ready's, else the flow's default), else wait's own.
        const timeout = (state.plan.timeout_secs ?? IDLE_TIMEOUT_SECS) * 1000;
        if (!(await paneIdle(state.surfaceId!, timeout))) throw new StepFailure(`the target pane never went idle within ${timeout / 1000} s`, 'timeout', 4);
        const text = fillCaptures(send.text, this.captures);
        // Multi-line text reaches a shell only as a paste.
        const { confirmed } = await sendToPane({ surface_id: state.surfaceId! }, text, { submit: send.submit, paste: /[\r\n]/.test(text), force: false, ...this.writeOrigin() });
        if (confirmed === false) throw new StepFailure('the agent did not start its turn (not_started)', 'failed');
      }
      const captured = await readyAndCapture(state);
      if (captured !== null && state.plan.capture) {
        const name = state.plan.capture.var;
        if (state.plan.item === null) this.captures.set(name, captured);
        else this.captures.set(name, { ...((this.captures.get(name) as Record<string, string> | undefined) ?? {}), [state.plan.item]: captured });
      }
      if (state.status === 'running') state.status = 'done';
      progress(`${state.plan.id}: done`);
    } catch (error) {
      if (state.status !== 'running') return;
      const failure = error instanceof StepFailure ? error : new StepFailure((error as Error).message, 'failed', error instanceof CliError ? error.exitCode : 1);
      state.status = failure.status;
      state.error = failure.message;
      state.exitCode = failure.exitCode;
      progress(`${state.plan.id}: ${failure.status}: ${failure.message}`);
      if (this.plan.on_failure === 'fail_fast') {
        this.stopped = true;
        for (const other of this.states) if (other.status === 'pending') other.status = 'skipped';
      }
    }
  }

  report() {
    return {
      name: this.plan.name,
      workspace: this.workspace,
      ok: this.states.every((s) => s.status === 'done'),
      steps: this.states.map((s) => ({ id: s.plan.id, item: s.plan.item, kind: s.plan.kind, status: s.status, surface_id: s.surfaceId, error: s.error })),
      captures: Object.fromEntries(this.captures),
    };
  }
}

/** `paneflow flow run <file>` (REFERENCE.md §5.5–§5.7). */
export async function flowRun(file: string, options: { dryRun: boolean; json: boolean; scope: Scope }): Promise<number> {
  const { path, text } = readSpec(file);
  let plan: FlowPlan;
  try {
    plan = parseFlow(text, path, realSpecHost());
  } catch (error) {
    specError(error);
  }
  if (plan.submits) {
    // Checked before anything happens, a dry run included: a running serve says, else the environment.
    const status = await serveStatus(instanceEndpoints());
    const scripting = status ? status.capabilities.scripting : process.env.PANEFLOW_IPC_SCRIPTING === '1';
    if (!scripting) throw new CliError('this flow submits (submit = true): relaunch serve with PANEFLOW_IPC_SCRIPTING=1', 1);
  }
  if (options.dryRun) {
    printJson(plan);
    return 0;
  }
  await ensureInstance();
  // Before any worktree, setup or pane: serve's gates, as it has them now.
  await checkGates({ submits: plan.submits, sends: plan.steps.some((s) => s.kind === 'send') });
  const runner = new Runner(plan, options.scope);
  const interrupted = new Promise<number>((resolve) =>
    process.once('SIGINT', () => {
      progress('interrupted: the orchestration stops, the panes stay');
      runner.cancel();
      resolve(1);
    }),
  );
  const code = await Promise.race([runner.run(), interrupted]);
  if (options.json) printJson(runner.report());
  const summary = runner.report().steps.map((s) => `${s.id} ${s.status}`).join(', ');
  progress(`${runner.report().ok ? 'ok' : 'not ok'}: ${summary}`);
  await sleep(0);
  return code;
}
