import { isSameProcess } from '@paneflow/proc';
import { stopTree } from '@paneflow/procscan';
import { ErrorCode, RpcError, type PublicMethods, type RestartAttempt, type ResultOf } from '@paneflow/protocol';
import type { ServeContext } from './context';
import type { PaneRecord } from './model';
import type { Reduction } from './status';
import { viewFromManifest, type View } from './views';

// A pane whose session the host lacks though this serve saw it (issue 36, "a double fault loses a
// pane"): a split made while the home was read-only, whose host died before its manifest could
// be written. Its record and its launch are in serve's memory alone; the pane is shown lost like
// any other, and a restart asks the host to make the session anew under its id (`session.ensure`).

/** What of the session mirror (mirror.ts, which imports this file) a re-creation uses: a new view, its frames held for it. */
interface ViewMaker {
  expect(session: string): void;
  expected(session: string): void;
  addView(view: View, frameSeq: number): void;
}

/** Why a re-created session runs its launch: what a restart says of it. */
const RECREATED = 'its host died before saving it: started anew from its launch';

/** Shows the pane's session lost (once), unless it had ended already: its host, and so its process, are gone. */
export function keepUnsaved(ctx: ServeContext, reduction: Reduction, pane: PaneRecord, view: View): void {
  if (view.unsaved) return;
  view.unsaved = true;
  ctx.log(`surface ${pane.surface_id} is shown lost: the host has no session ${pane.session} (its host died before its manifest was written); a restart starts it anew from its launch`);
  if (view.lifecycle === 'live' || view.lifecycle === 'starting') shownLost(reduction, view, ctx.clock.now());
}

/** A session whose host died: lost, with no process or agent, and the faces told. */
export function shownLost(reduction: Reduction, view: View, now: number): void {
  view.lifecycle = 'lost';
  view.lost = { reason: 'host_crash', at_ms: now };
  view.observation = null;
  view.agent = null;
  reduction.reduce(view);
  reduction.publishSessionChanged(view);
  reduction.announce(view);
}

/** A read or search of an unsaved pane is refused: the host that could not save its manifest saved no screen of it either. */
export function refuseUnsavedRead(ctx: ServeContext, pane: PaneRecord): void {
  if (!ctx.views.get(pane.session)?.unsaved) return;
  throw new RpcError(ErrorCode.NotFound, `surface ${pane.surface_id} has no saved screen: its host died before it could write to the home; a restart starts it anew`, { reason: 'screen_not_saved' });
}

/**
 * Makes an unsaved pane's session anew: its recorded process ended first if it outlived its host
 * (proven by its start time: one program per pane, never two), then `session.ensure` with the
 * pane's workspace, surface, name and cwd and the launch its manifest had (program, arguments,
 * env, size). The host has no resume record of it, so it runs its launch (`mode: launch`); its
 * status goes on from the pane's `state_seq`.
 */
export async function recreateUnsaved(ctx: ServeContext, mirror: ViewMaker, reduction: Reduction, pane: PaneRecord, view: View): Promise<ResultOf<PublicMethods, 'surface.restart'>> {
  if (view.process && isSameProcess(view.process.pid, view.process.started_at)) await stopTree(view.process.pid);
  const { launch } = view;
  const argv = [launch.shell, ...launch.args];
  // Its frames wait for the new view, so none is applied to the lost one and then replaced.
  mirror.expect(pane.session);
  try {
    const made = await ctx.host.request('session.ensure', {
      session: pane.session,
      workspace_id: pane.workspace_id,
      surface_id: pane.surface_id,
      name: pane.name,
      cwd: pane.cwd,
      argv,
      env: launch.env,
      ...(launch.env_remove ? { env_remove: launch.env_remove } : {}),
      cols: launch.cols,
      rows: launch.rows,
    });
    const manifest = await ctx.host.request('session.inspect', { session: pane.session });
    const next = viewFromManifest(manifest, undefined);
    next.entry = view.entry;
    mirror.addView(next, manifest.frame_seq);
    reduction.publishSessionChanged(next);
    reduction.announce(next);
    ctx.model.changed();
    const restart: RestartAttempt = { mode: 'launch', provider_session_id: null, argv, outcome: 'launched', reason: RECREATED, at_ms: ctx.clock.now() };
    ctx.log(`surface ${pane.surface_id}: restarted (launch): ${RECREATED}`);
    return { surface_id: pane.surface_id, session: pane.session, generation: made.generation, mode: 'launch', restart };
  } finally {
    mirror.expected(pane.session);
  }
}
