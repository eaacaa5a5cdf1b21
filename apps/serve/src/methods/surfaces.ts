import { fence, leaves, READ_LINES_DEFAULT, READY_DEADLINE_MS, splitPane } from '@paneflow/protocol';
import { disabled, invalid, notFound } from '../errors';
import { savedBeforeReply as saved } from '../model';
import type { MethodFamily } from './parts';
import { presetLaunch } from './workspaces';
import { resolveSelector } from '../selectors';
import { refuseUnsavedRead } from '../unsaved';

/** `surface.*`: reading, naming, focusing, typing into and splitting panes; a change answers once it is saved. */
export const surfaceMethods: MethodFamily = ({ ctx, reduction, readiness, workspaces, panes, sending, machines }) => ({
  // Other machines' panes (issue 32) only in the scope of all, or when `machine` names one.
  'surface.list': ({ scope, workspace_id, machine }) => {
    const within = scope === 'all' ? null : ctx.callerWorkspace(workspace_id);
    const here = machine === undefined || machine === null;
    return {
      surfaces: [
        ...(here
          ? ctx.model
              .orderedPanes()
              .filter((p) => within === null || p.workspace_id === within)
              .map((p) => ({ ...workspaces.surfaceEntry(p), machine: null }))
          : []),
        ...(scope === 'all' || typeof machine === 'string' ? machines.surfaces(machine) : []),
      ],
    };
  },
  'surface.resolve': ({ selector, scope, workspace_id, many }) => resolveSelector(ctx, workspaces, { selector, scope: scope ?? 'workspace', workspaceId: workspace_id, many: many ?? false }),
  'surface.read': async ({ surface_id, lines, offset, fenced, scope }) => {
    const pane = ctx.pane(surface_id);
    refuseUnsavedRead(ctx, pane);
    const result = await ctx.host.request('session.read', { session: pane.session, lines: lines ?? READ_LINES_DEFAULT, offset: offset ?? 0 });
    if (!(fenced ?? ctx.config.current.ai_injection_fence)) return result;
    return { ...result, text: fence(result.text, { source: 'surface.read', scope: scope ?? 'all', total_lines: result.total_lines, eof: result.eof }) };
  },
  'surface.search': async ({ surface_id, pattern, max_matches }) => {
    const pane = ctx.pane(surface_id);
    refuseUnsavedRead(ctx, pane);
    return ctx.host.request('session.search', { session: pane.session, pattern, max_matches });
  },
  'surface.rename': saved(ctx.model, ({ surface_id, name }) => {
    const pane = ctx.pane(surface_id);
    const next = name ? name : null;
    workspaces.checkName(next, surface_id);
    pane.name = next;
    ctx.model.changed();
    workspaces.surfaceUpdated(pane);
    return { surface_id, name: next };
  }),
  'surface.focus': saved(ctx.model, ({ surface_id }) => {
    const pane = ctx.pane(surface_id);
    const workspace = ctx.workspaceOf(pane);
    workspace.focus = surface_id;
    const index = ctx.model.workspaceIndex(workspace.id);
    workspaces.select(index);
    ctx.publish({ type: 'focus_changed', surface_id, session: pane.session, workspace: index });
    return { surface_id, workspace: index };
  }),
  'surface.status': ({ surface_id }) => {
    const pane = ctx.pane(surface_id);
    const view = ctx.view(pane);
    return { ...reduction.statusOf(view, pane), output_generation: view.outputGeneration };
  },
  'surface.send_text': (params) => sending.sendText(params),
  'surface.send_keystroke': (params) => sending.sendKeystroke(params),
  'surface.answer': (params) => sending.answer(params),
  'surface.wait_ready': async ({ surface_id, timeout_ms }) => {
    const pane = ctx.pane(surface_id);
    ctx.view(pane);
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeout_ms ?? READY_DEADLINE_MS)));
    const by = await Promise.race([readiness.whenReady(pane.session), timedOut]);
    clearTimeout(timer);
    return { ready: by !== 'timeout', by };
  },
  'surface.close': saved(ctx.model, async ({ surface_id, unless_busy, force_worktree }) => {
    const pane = ctx.pane(surface_id);
    const workspace = ctx.workspaceOf(pane);
    const worktrees = await panes.close([pane], { unlessBusy: unless_busy, forceWorktree: force_worktree });
    const empty = ctx.model.workspacePanes(workspace.id).length === 0;
    if (empty) workspaces.remove(workspace);
    return { closed: surface_id, workspace_closed: empty, worktrees };
  }),
  'surface.split': saved(ctx.model, async ({ direction, surface_id, cwd, command, agent, prompt, env, name, managed_worktree, preset }) => {
    if ((command || agent || prompt !== undefined || env || managed_worktree) && !ctx.capabilities.orchestration && !ctx.capabilities.scripting) {
      throw disabled('surface.split', 'PANEFLOW_IPC_ORCHESTRATION');
    }
    if (command && agent) throw invalid('agent and command are exclusive', 'agent_and_command', 'agent');
    if (prompt !== undefined && !agent) throw invalid('prompt requires agent', 'prompt_without_agent', 'prompt');
    if (preset && (command || agent || prompt !== undefined)) throw invalid('preset, agent and command are exclusive', 'preset_and_command', 'preset');
    // A preset runs what the catalog says, ungated: a caller's own env on top still needs the gate above.
    const launch = preset ? presetLaunch(ctx.catalog, preset) : null;
    const active = ctx.activeWorkspace();
    const targetId = surface_id ?? active?.focus ?? leaves(active?.layout ?? null)[0];
    if (targetId === undefined || targetId === null) throw notFound('a pane to split');
    const target = ctx.pane(targetId);
    const workspace = ctx.workspaceOf(target);
    workspaces.checkName(name);
    const dir = cwd ?? ctx.views.get(target.session)?.foregroundCwd ?? target.cwd;
    workspaces.checkCwd(dir);
    const pane = await panes.create(workspace, {
      cwd: dir,
      command: launch?.command ?? command,
      agent: launch?.agent ?? agent,
      env: launch ? { ...launch.env, ...env } : env,
      name,
      prompt,
      managed_worktree: managed_worktree ?? null,
    });
    workspace.layout = splitPane(workspace.layout, target.surface_id, pane.surface_id, direction.startsWith('h') ? 'h' : 'v');
    workspace.focus = pane.surface_id;
    ctx.model.changed();
    workspaces.changed(workspace);
    return { surface_id: pane.surface_id, session: pane.session };
  }),
});
