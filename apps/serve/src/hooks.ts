import { isSameProcess } from '@paneflow/proc';
import { HOOK_FIELD_LIMITS, isHookTool, type HookMethod, type HookParams } from '@paneflow/protocol';
import { identityOf as identity, type Agent } from '@paneflow/reducer';
import type { Timer } from './clock';
import type { ServeContext } from './context';
import { invalid } from './errors';
import type { Reduction } from './status';
import { subagentIdProblem } from './subagents';
import type { View } from './views';
import type { Workspaces } from './workspaces';

/**
 * Hook intake (REFERENCE.md §7.2): metadata only. An accepted frame updates the session's hook
 * metadata, goes to the host for the manifest, and is re-broadcast; it never touches the reducer.
 */
/** How long an agent seen gone waits for its session's end, which knows its exit code. */
const GONE_GRACE_MS = 1000;

export class HookIntake {
  /** Per session, the agent process whose exit was announced (by its hook or by the host): one `ai.exit` each. */
  private readonly exited = new Map<string, string>();
  /** Per session, an agent that left the foreground while its process was still there (stopped, or not yet reaped). */
  private readonly left = new Map<string, Agent>();
  /**
   * An agent seen gone while its session still runs, announced after GONE_GRACE_MS: if it was the
   * session's own process, the session's end (with its exit code) comes meanwhile and says it.
   */
  private readonly gone = new Map<string, { agent: Agent; timer: Timer }>();

  constructor(
    private readonly ctx: ServeContext,
    private readonly reduction: Reduction,
    private readonly workspaces: Workspaces,
  ) {}

  accept(method: HookMethod, params: HookParams): { accepted: boolean; reason?: string } {
    // The schema bounds each text in characters; §7.1's limits are UTF-8 bytes.
    for (const [field, value] of Object.entries(params.payload)) {
      const limit = HOOK_FIELD_LIMITS[field];
      if (typeof value === 'string' && Buffer.byteLength(value) > limit) throw invalid(`'payload/${field}' is over ${limit} bytes`, 'invalid_params', `payload/${field}`);
    }
    // The id names a marker file (§7.2).
    const idProblem = method === 'ai.subagent' ? subagentIdProblem(params.payload.agent_id) : null;
    if (idProblem) throw invalid(`'payload/agent_id' ${idProblem}`, 'invalid_agent_id', 'payload/agent_id');
    const view = this.ctx.views.get(params.session);
    if (!view) return { accepted: false, reason: 'unknown_session' };
    if (!isHookTool(params.tool)) return { accepted: false, reason: 'unknown_tool' };
    const pid = params.pid ?? null;
    const hook = view.hook;
    if (params.emitted_at_ms < view.generationStartedAtMs || (pid === hook.pid && hook.last_hook && params.emitted_at_ms < hook.last_hook.emitted_at_ms)) {
      return { accepted: false, reason: 'stale' };
    }
    const payload = params.payload;
    view.lastHookMs = this.ctx.clock.now();
    hook.revision++;
    hook.pid = pid ?? view.agent?.pid ?? null;
    hook.last_hook = { method, emitted_at_ms: params.emitted_at_ms };
    hook.provider_session_id = payload.session_id ?? hook.provider_session_id;
    hook.transcript_path = payload.transcript_path ?? hook.transcript_path;
    switch (method) {
      case 'ai.prompt_submit':
        hook.prompt = payload.prompt ?? null;
        if (hook.prompt) this.reduction.turns.notePrompt(view.session, hook.prompt, 'hook');
        break;
      case 'ai.tool_use':
        hook.active_tool_name = payload.phase === 'pre' ? (payload.tool_name ?? null) : null;
        break;
      case 'ai.notification':
        hook.notification_message = payload.message ?? hook.notification_message;
        break;
      case 'ai.stop':
        hook.last_result = payload.last_result ?? hook.last_result;
        hook.active_tool_name = null;
        break;
      case 'ai.subagent':
        this.subagent(view, payload.phase === 'stop' ? 'stop' : 'start', payload.agent_id!, params.emitted_at_ms);
        break;
      case 'ai.exit':
        if (view.agent && view.agent.pid === hook.pid) this.exited.set(view.session, identity(view.agent));
        hook.active_tool_name = null;
        this.clearSubagents(view);
        break;
      case 'ai.session_end':
        hook.active_tool_name = null;
        this.clearSubagents(view);
        break;
    }
    // The host keeps it in the manifest, for the next serve; losing that write loses no state.
    this.ctx.host
      .request('agent.event', { session: view.session, generation: view.generation, hook: { ...hook } })
      .catch((error: Error) => this.ctx.log(`agent.event ${view.session}: ${error.message}`));
    const pane = this.ctx.model.paneBySession(view.session);
    this.ctx.publish({ type: method, surface_id: pane?.surface_id, session: view.session, tool: params.tool, payload });
    // A hook is a sign of life: a stalled agent's flag goes (stalls.ts, after the reduction).
    if (view.stalled) this.reduction.reduce(view);
    // An unnamed pane takes its prompt as its title.
    if (method === 'ai.prompt_submit' && pane && !pane.name) {
      this.reduction.publishSessionChanged(view);
      this.workspaces.surfaceUpdated(pane);
    }
    return { accepted: true };
  }

  /**
   * A new observation of a live session: an agent that was in front before (`previous`), or one
   * that stepped back earlier, and is not in front now has exited if its process is gone.
   */
  observed(view: View, previous: Agent | null): void {
    for (const agent of [previous, this.left.get(view.session)]) {
      if (!agent || agent.pid === view.agent?.pid) continue;
      if (isSameProcess(agent.pid, agent.startedAt)) {
        this.left.set(view.session, agent);
        continue;
      }
      if (this.left.get(view.session) === agent) this.left.delete(view.session);
      if (this.gone.has(view.session)) continue;
      const timer = this.ctx.clock.setTimeout(() => {
        this.gone.delete(view.session);
        this.agentExited(view, agent, null);
      }, GONE_GRACE_MS);
      this.gone.set(view.session, { agent, timer });
    }
  }

  /** The session's process ended (`pid`, `exitCode`) with `agent` in front, or after one stepped back. */
  sessionEnded(view: View, agent: Agent | null, pid: number | null, exitCode: number | null): void {
    const gone = this.gone.get(view.session);
    this.ctx.clock.clearTimeout(gone?.timer);
    this.gone.delete(view.session);
    const ended = agent ?? this.left.get(view.session) ?? gone?.agent ?? null;
    this.left.delete(view.session);
    // The exit code is the agent's only when the agent was the session's own process (`sh -c agent` execs it).
    if (ended) this.agentExited(view, ended, ended.pid === pid ? exitCode : null);
  }

  /**
   * The host reports that the agent process exited (the session's process ended with it in front,
   * or it left the foreground and is gone): `ai.exit` as if its hook had said so (§2.5), unless
   * its hook did. Payload `{pid, exit_code, reported_by: "host"}`; `exit_code` is null when the
   * session goes on (a shell outlived the agent and did not say how it ended).
   */
  agentExited(view: View, agent: Agent, exitCode: number | null): void {
    if (this.exited.get(view.session) === identity(agent)) return;
    this.exited.set(view.session, identity(agent));
    if (view.hook.pid === agent.pid) view.hook.active_tool_name = null;
    this.clearSubagents(view);
    const pane = this.ctx.model.paneBySession(view.session);
    const tool = this.ctx.catalog.bySlug.get(agent.runtimeId)?.tool ?? agent.runtimeId;
    this.ctx.publish({ type: 'ai.exit', surface_id: pane?.surface_id, session: view.session, tool, payload: { pid: agent.pid, exit_code: exitCode, reported_by: 'host' } });
  }

  forget(session: string): void {
    this.ctx.clock.clearTimeout(this.gone.get(session)?.timer);
    this.gone.delete(session);
    this.exited.delete(session);
    this.left.delete(session);
    this.reduction.subagents.forget(session);
  }

  private subagent(view: View, phase: 'start' | 'stop', id: string, atMs: number) {
    const { subagents } = this.reduction;
    let changed: boolean;
    try {
      changed = phase === 'start' ? subagents.start(view.session, view.generation, id, view.hook.pid, atMs) : subagents.stop(view.session, view.generation, id);
    } catch (error) {
      // The hook's metadata stands; only the marker is missing until the next frame.
      this.ctx.log(`subagent marker ${view.session}/${id}: ${(error as Error).message}`);
      return;
    }
    if (changed) this.reduction.announce(view);
  }

  private clearSubagents(view: View) {
    try {
      if (this.reduction.subagents.clear(view.session, view.generation)) this.reduction.announce(view);
    } catch (error) {
      this.ctx.log(`subagent markers of ${view.session}: ${(error as Error).message}`);
    }
  }
}
