import { answersFor } from '@paneflow/procscan';
import { HOOK_METHODS, type InboxItem, type PublicMethods } from '@paneflow/protocol';
import { StreamReply, type Handlers } from '@paneflow/rpc';
import type { HookIntake } from '../hooks';
import { savedBeforeReply as saved } from '../model';
import type { MethodFamily, Parts } from './parts';

function hookMethods(hooks: HookIntake): Handlers<PublicMethods> {
  const handlers: Handlers<PublicMethods> = {};
  for (const method of HOOK_METHODS) handlers[method] = (params) => hooks.accept(method, params);
  return handlers;
}

/** `fleet.list`, `session.*`, restarting panes, `events.subscribe` and the hooks' `ai.*`. */
export const sessionMethods: MethodFamily = (parts) => {
  const { ctx, reduction, hooks, restorer } = parts;
  return {
  // Agent panes, running or not: a lost or exited agent is still one to bring back.
  'fleet.list': () => ({
    agents: ctx.model
      .orderedPanes()
      .filter((p) => ctx.views.has(p.session))
      .map((p) => reduction.statusOf(ctx.views.get(p.session)!, p))
      // A hidden agent (config) stays out of `ps` too.
      .filter((status) => status.tool !== null && !status.hidden),
  }),
  'fleet.activity': ({ surface_id, limit }) => ({ entries: reduction.activity.latest(surface_id, limit) }),
  'fleet.inbox': () => ({ items: inbox(parts), answered: parts.rules.history(Date.now()) }),
  'session.list': () => ({
    sessions: ctx.model
      .orderedPanes()
      .filter((p) => ctx.views.has(p.session))
      .map((p) => reduction.row(ctx.views.get(p.session)!, p)),
  }),
  // Not saved before it answers: what a restart changes (generation, resume, outcome) is the host's
  // manifest, which the host writes at once; serve's own file holds no more than a status entry.
  'surface.restart': ({ surface_id, fresh }) => restorer.restart(ctx.pane(surface_id), fresh ?? false),
  'session.restore': async ({ workspace_id }) => ({ restored: await restorer.restore(restorer.candidates(workspace_id)) }),
  // `unread` is kept on disk: an ack is answered once it is saved.
  'session.ack': saved(ctx.model, ({ sessions }) => {
    const acked = sessions.filter((s) => ctx.views.has(s));
    for (const session of acked) reduction.ack(ctx.views.get(session)!);
    return { acked };
  }),
  'events.subscribe': ({ surfaces, types, heartbeat }, { connection }) =>
    new StreamReply({ type: 'subscribed' as const, surfaces: surfaces ?? null, types: types ?? null }, () => {
      ctx.events.subscribe(connection, surfaces ?? null, types ?? null, heartbeat ?? true);
    }),
  ...hookMethods(hooks),
  };
};

/** Every agent waiting for its person, oldest wait first, with how its runtime lets it be answered. */
function inbox({ ctx, reduction }: Parts): InboxItem[] {
  const now = Date.now();
  const items: InboxItem[] = [];
  for (const pane of ctx.model.orderedPanes()) {
    const view = ctx.views.get(pane.session);
    if (!view) continue;
    const status = reduction.statusOf(view, pane);
    if (status.state !== 'waiting_for_input') continue;
    const workspace = ctx.workspaceOf(pane);
    const kind = status.declared?.kind ?? null;
    const waitingMs = status.waiting_ms ?? 0;
    items.push({
      surface_id: pane.surface_id,
      surface_name: pane.name,
      workspace: status.workspace,
      workspace_id: workspace.id,
      workspace_name: workspace.name,
      tool: status.tool,
      runtime_id: status.runtime_id,
      kind,
      message: status.message,
      since_ms: now - waitingMs,
      waiting_ms: waitingMs,
      state_seq: status.state_seq,
      answers: answersFor(status.runtime_id ? ctx.catalog.bySlug.get(status.runtime_id) : undefined, kind),
    });
  }
  return items.sort((a, b) => a.since_ms - b.since_ms);
}
