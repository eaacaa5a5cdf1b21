import { HOOK_METHODS, type PublicMethods } from '@paneflow/protocol';
import { StreamReply, type Handlers } from '@paneflow/rpc';
import type { HookIntake } from '../hooks';
import type { MethodFamily } from './parts';

function hookMethods(hooks: HookIntake): Handlers<PublicMethods> {
  const handlers: Handlers<PublicMethods> = {};
  for (const method of HOOK_METHODS) handlers[method] = (params) => hooks.accept(method, params);
  return handlers;
}

/** `fleet.list`, `session.*`, restarting panes, `events.subscribe` and the hooks' `ai.*`. */
export const sessionMethods: MethodFamily = ({ ctx, reduction, hooks, restorer }) => ({
  // Agent panes, running or not: a lost or exited agent is still one to bring back.
  'fleet.list': () => ({
    agents: ctx.model
      .orderedPanes()
      .filter((p) => ctx.views.has(p.session))
      .map((p) => reduction.statusOf(ctx.views.get(p.session)!, p))
      .filter((status) => status.tool !== null),
  }),
  'session.list': () => ({
    sessions: ctx.model
      .orderedPanes()
      .filter((p) => ctx.views.has(p.session))
      .map((p) => reduction.row(ctx.views.get(p.session)!, p)),
  }),
  'surface.restart': ({ surface_id, fresh }) => restorer.restart(ctx.pane(surface_id), fresh ?? false),
  'session.restore': async ({ workspace_id }) => ({ restored: await restorer.restore(restorer.candidates(workspace_id)) }),
  'session.ack': ({ sessions }) => {
    const acked = sessions.filter((s) => ctx.views.has(s));
    for (const session of acked) reduction.ack(ctx.views.get(session)!);
    return { acked };
  },
  'events.subscribe': ({ surfaces, types, heartbeat }, { connection }) =>
    new StreamReply({ type: 'subscribed' as const, surfaces: surfaces ?? null, types: types ?? null }, () => {
      ctx.events.subscribe(connection, surfaces ?? null, types ?? null, heartbeat ?? true);
    }),
  ...hookMethods(hooks),
});
