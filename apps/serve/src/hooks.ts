import { HOOK_FIELD_LIMITS, isHookTool, type HookMethod, type HookParams } from '@paneflow/protocol';
import type { ServeContext } from './context';
import { invalid } from './errors';
import type { Reduction } from './status';
import type { Workspaces } from './workspaces';

/**
 * Hook intake (REFERENCE.md §7.2): metadata only. An accepted frame updates the session's hook
 * metadata, goes to the host for the manifest, and is re-broadcast; it never touches the reducer.
 */
export class HookIntake {
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
    const view = this.ctx.views.get(params.session);
    if (!view) return { accepted: false, reason: 'unknown_session' };
    if (!isHookTool(params.tool)) return { accepted: false, reason: 'unknown_tool' };
    const pid = params.pid ?? null;
    const hook = view.hook;
    if (params.emitted_at_ms < view.generationStartedAtMs || (pid === hook.pid && hook.last_hook && params.emitted_at_ms < hook.last_hook.emitted_at_ms)) {
      return { accepted: false, reason: 'stale' };
    }
    const payload = params.payload;
    hook.revision++;
    hook.pid = pid ?? view.agent?.pid ?? null;
    hook.last_hook = { method, emitted_at_ms: params.emitted_at_ms };
    hook.provider_session_id = payload.session_id ?? hook.provider_session_id;
    hook.transcript_path = payload.transcript_path ?? hook.transcript_path;
    switch (method) {
      case 'ai.prompt_submit':
        hook.prompt = payload.prompt ?? null;
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
      case 'ai.session_end':
      case 'ai.exit':
        hook.active_tool_name = null;
        break;
    }
    // The host keeps it in the manifest, for the next serve; losing that write loses no state.
    this.ctx.host
      .request('agent.event', { session: view.session, generation: view.generation, hook: { ...hook } })
      .catch((error: Error) => this.ctx.log(`agent.event ${view.session}: ${error.message}`));
    const pane = this.ctx.model.paneBySession(view.session);
    this.ctx.publish({ type: method, surface_id: pane?.surface_id, session: view.session, tool: params.tool, payload });
    // An unnamed pane takes its prompt as its title.
    if (method === 'ai.prompt_submit' && pane && !pane.name) {
      this.reduction.publishSessionChanged(view);
      this.workspaces.surfaceUpdated(pane);
    }
    return { accepted: true };
  }
}
