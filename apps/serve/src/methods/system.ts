import { PUBLIC_PROTOCOL_VERSION, PublicMethods } from '@paneflow/protocol';
import type { MethodFamily } from './parts';

/** `system.*` and `serve.*`: what this serve is and can do. */
export const systemMethods: MethodFamily = ({ ctx, shutdown }) => ({
  'system.ping': () => ({ pong: true as const }),
  'system.capabilities': () => {
    const { scripting, orchestration } = ctx.capabilities;
    const aiUnrestricted = ctx.config.current.ai_unrestricted;
    const methods = Object.keys(PublicMethods).filter(
      (m) => (m !== 'surface.send_text' || scripting || aiUnrestricted) && (m !== 'surface.send_keystroke' || scripting) && (m !== 'workspace.up' || scripting || orchestration),
    );
    return { scripting, orchestration, ai_unrestricted: aiUnrestricted, methods };
  },
  'system.identify': () => ({ name: 'paneflow-serve' as const, version: ctx.buildId, protocol: PUBLIC_PROTOCOL_VERSION }),
  'system.counters': () => ({
    counters: { ...ctx.counters, subscribers: ctx.events.count, dropped_frames: ctx.events.droppedFrames, sessions: ctx.views.size },
  }),
  'serve.status': () => ({
    pid: process.pid,
    protocol: PUBLIC_PROTOCOL_VERSION,
    home: ctx.endpoints.home,
    build_id: ctx.buildId,
    sessions: ctx.views.size,
    capabilities: { ...ctx.capabilities, ai_unrestricted: ctx.config.current.ai_unrestricted },
    presentation: { reduce_motion: ctx.config.current.reduce_motion, attach: ctx.config.current.attach },
  }),
  'serve.shutdown': ({ drain_ms }) => {
    setImmediate(() => shutdown(drain_ms ?? 5000));
    return {};
  },
});
