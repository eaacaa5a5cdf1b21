import { DIGEST_MACHINE_WAIT_MS, type DigestAgent } from '@paneflow/protocol';
import type { MethodFamily } from './parts';

/** The turn ledger's methods (additions to REFERENCE.md): turns, a turn's diff, pruning, the digest. */
export const turnMethods: MethodFamily = ({ ctx, reduction, machines }) => {
  const { turns } = reduction;
  // A pane named by id must exist; a session may be one whose pane has closed.
  const target = (surface_id: number | undefined, session: string | undefined) => {
    if (surface_id !== undefined) ctx.pane(surface_id);
    return { surface_id, session };
  };
  return {
    'turn.list': ({ surface_id, session, since_ms, limit }) => ({ turns: turns.list({ ...target(surface_id, session), since_ms, limit }) }),
    'turn.diff': ({ surface_id, session, turn, stat }) => turns.diff({ ...target(surface_id, session), turn, stat }),
    'turn.prune': ({ surface_id, session }) => turns.prune(target(surface_id, session)),
    'fleet.digest': async ({ since_ms, machine }) => {
      const here = turns.digest(since_ms, (session) => {
        const pane = ctx.model.paneBySession(session);
        const view = ctx.views.get(session);
        if (!pane || !view) return null;
        const status = reduction.statusOf(view, pane);
        if (status.state !== 'waiting_for_input') return null;
        return { kind: status.declared?.kind ?? null, message: status.message, since_ms: ctx.clock.now() - (status.waiting_ms ?? 0) };
      });
      if (machines.count === 0) return here;
      const local = typeof machine === 'string' ? [] : here.agents.map((agent) => ({ ...agent, machine: null }));
      if (machine === null) return { ...here, agents: local };
      // One window for all: this machine's start, asked of each connected machine at once.
      const far = await Promise.all(
        machines.rows(machine).map(async (row) => {
          if (row.state !== 'connected') return [];
          const part = (await machines.forward(row.name, 'fleet.digest', { since_ms: here.since_ms }, DIGEST_MACHINE_WAIT_MS).catch(() => null)) as { agents: DigestAgent[] } | null;
          return (part?.agents ?? []).map((agent) => ({ ...agent, machine: row.name }));
        }),
      );
      return { ...here, agents: [...local, ...far.flat()], machines: machines.rows(machine) };
    },
    'fleet.looked': () => ({ looked_at_ms: turns.looked() }),
  };
};
