import { PUBLIC_PROTOCOL_VERSION, PublicMethods } from '@paneflow/protocol';
import type { ServeContext } from '../context';
import { presentationOf } from '../config';
import { disabled } from '../errors';
import type { MethodFamily } from './parts';

/** The queue's writes: behind the gate `surface.send_text` is behind. */
const QUEUE_WRITES = new Set(['queue.add', 'queue.remove', 'queue.move', 'queue.send_now']);

/** How long `serve.status` asks the host about its manifests. */
const HOST_STATUS_WAIT_MS = 1000;

/** `system.*` and `serve.*`: what this serve is and can do. */
export const systemMethods: MethodFamily = ({ ctx, shutdown }) => ({
  'system.ping': () => ({ pong: true as const }),
  'system.capabilities': () => {
    const { scripting, orchestration } = ctx.capabilities;
    const aiUnrestricted = ctx.config.current.ai_unrestricted;
    const methods = Object.keys(PublicMethods).filter(
      (m) =>
        ((m !== 'surface.send_text' && !QUEUE_WRITES.has(m)) || scripting || aiUnrestricted) &&
        (m !== 'surface.send_keystroke' || scripting) &&
        (m !== 'workspace.up' || scripting || orchestration) &&
        (m !== 'serve.shutdown' || orchestration),
    );
    return { scripting, orchestration, ai_unrestricted: aiUnrestricted, methods };
  },
  'system.identify': () => ({ name: 'paneflow-serve' as const, version: ctx.buildId, protocol: PUBLIC_PROTOCOL_VERSION }),
  'system.counters': () => ({
    counters: { ...ctx.counters, subscribers: ctx.events.count, dropped_frames: ctx.events.droppedFrames, sessions: ctx.views.size },
  }),
  'serve.status': async () => ({
    pid: process.pid,
    protocol: PUBLIC_PROTOCOL_VERSION,
    home: ctx.endpoints.home,
    build_id: ctx.buildId,
    sessions: ctx.views.size,
    capabilities: { ...ctx.capabilities, ai_unrestricted: ctx.config.current.ai_unrestricted },
    presentation: presentationOf(ctx.config.current),
    health: await health(ctx),
  }),
  // A shutdown followed by a start with other capabilities would reopen the gates: the owner
  // stops serve with `paneflow stop` (SIGTERM) instead.
  'serve.shutdown': ({ drain_ms }) => {
    if (!ctx.capabilities.orchestration) throw disabled('serve.shutdown', 'PANEFLOW_IPC_ORCHESTRATION');
    setImmediate(() => shutdown(drain_ms ?? 5000));
    return {};
  },
});

/** What keeps changes from lasting: serve's model unsaved, or manifests the host holds unwritten. */
async function health(ctx: ServeContext): Promise<{ state: 'ok' | 'degraded'; problems: string[] }> {
  const problems = ctx.model.problem ? [ctx.model.problem] : [];
  // A host that does not answer at once is not a health problem of the home: status must not wait on it.
  const host = await ctx.host.request('host.status', {}, HOST_STATUS_WAIT_MS).catch(() => null);
  const unwritten = host?.counters.manifests_unwritten ?? 0;
  if (unwritten > 0) problems.push(`the host cannot write ${unwritten} session manifest${unwritten === 1 ? '' : 's'} to its home`);
  return problems.length > 0 ? { state: 'degraded', problems } : { state: 'ok', problems };
}
