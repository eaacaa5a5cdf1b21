import { answersFor } from '@paneflow/procscan';
import { HOOK_METHODS, type InboxItem, type PublicMethods } from '@paneflow/protocol';
import { StreamReply, type Handlers } from '@paneflow/rpc';
import type { HookIntake } from '../hooks';
import { savedBeforeReply as saved, type PaneRecord } from '../model';
import type { View } from '../views';
import type { MethodFamily, Parts } from './parts';

function hookMethods(hooks: HookIntake): Handlers<PublicMethods> {
  const handlers: Handlers<PublicMethods> = {};
  for (const method of HOOK_METHODS) handlers[method] = (params) => hooks.accept(method, params);
  return handlers;
}

/** `fleet.list`, `session.*`, restarting panes, `events.subscribe` and the hooks' `ai.*`. */
export const sessionMethods: MethodFamily = (parts) => {
  const { ctx, reduction, hooks, restorer, machines } = parts;
  /** Each of this machine's panes with a session serve knows, in order, as `row` makes it. */
  const ownPanes = <R>(row: (view: View, pane: PaneRecord) => R): R[] =>
    ctx.model
      .orderedPanes()
      .filter((p) => ctx.views.has(p.session))
      .map((p) => row(ctx.views.get(p.session)!, p));
  return {
  // Agent panes, running or not: a lost or exited agent is still one to bring back.
  // Every machine's (issue 32): this one's first, then each other's as last seen, with their links.
  'fleet.list': ({ machine }) => ({
    agents: [
      ...(here(machine)
        ? ownPanes((view, pane) => ({ ...reduction.statusOf(view, pane), machine: null }))
            // A hidden agent (config) stays out of `ps` too.
            .filter((status) => status.tool !== null && !status.hidden)
        : []),
      ...machines.agents(machine),
    ],
    ...machineRows(machine),
  }),
  'fleet.activity': ({ surface_id, limit }) => ({ entries: reduction.activity.latest(surface_id, limit) }),
  // Oldest wait first, whichever machine it is on.
  'fleet.inbox': ({ machine }) => ({
    items: [...(here(machine) ? inbox(parts) : []), ...machines.inbox(machine)].sort((a, b) => a.since_ms - b.since_ms),
    answered: parts.rules.history(ctx.clock.now()),
    ...machineRows(machine),
  }),
  'session.list': ({ machine }) => ({
    sessions: [
      ...(here(machine) ? ownPanes((view, pane) => ({ ...reduction.row(view, pane), machine: null })) : []),
      ...machines.sessions(machine),
    ],
    ...machineRows(machine),
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
  'events.subscribe': ({ surfaces, types, heartbeat, machines: far }, { connection }) =>
    new StreamReply({ type: 'subscribed' as const, surfaces: surfaces ?? null, types: types ?? null }, () => {
      ctx.events.subscribe(connection, surfaces ?? null, types ?? null, heartbeat ?? true, far ?? false);
    }),
  ...hookMethods(hooks),
  };

  /** The links of the machines a list covers, when there are any (a list of this machine alone has none). */
  function machineRows(machine: string | null | undefined) {
    return machines.count > 0 && machine !== null ? { machines: machines.rows(machine) } : {};
  }
};

/** Whether a list narrowed by `machine` takes this machine's rows (absent: every machine; null: this one). */
const here = (machine: string | null | undefined) => machine === undefined || machine === null;

/** Every agent waiting for its person, oldest wait first, with how its runtime lets it be answered. */
function inbox({ ctx, reduction }: Parts): InboxItem[] {
  const now = ctx.clock.now();
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
      machine: null,
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
