import { findPreset, platformOf, resolveAgent, suggestedPresets, type Catalog } from '@paneflow/procscan';
import { DEFAULT_LAYOUT, leaves, presetLayout, type LayoutNode } from '@paneflow/protocol';
import { existsSync } from 'node:fs';
import { disabled, invalid, notFound } from '../errors';
import { savedBeforeReply as saved, type PaneRecord } from '../model';
import type { PaneSpec } from '../panes';
import type { MethodFamily } from './parts';

/**
 * What a launcher preset (a runtime's `[[suggested_presets]]`) starts: its agent, command and env,
 * from serve's own catalog, and its name; refused for an id that is not a preset on this platform.
 */
export function presetLaunch(catalog: Catalog, id: string): Required<Pick<PaneSpec, 'agent' | 'command' | 'env'>> & { name: string } {
  const platform = platformOf(process.platform);
  const preset = findPreset(catalog, id, platform);
  if (!preset) {
    const known = suggestedPresets(catalog, platform).map((p) => p.id);
    throw invalid(`unknown preset '${id}'; presets here: ${known.join(', ') || 'none'}`, 'unknown_preset', 'preset');
  }
  return { agent: preset.runtime.slug, command: preset.command, env: preset.env ?? {}, name: preset.name ?? preset.id };
}

/** `workspace.*`: workspaces, their panes and their layouts; a change answers once it is saved. */
export const workspaceMethods: MethodFamily = ({ ctx, workspaces, panes }) => ({
  'workspace.list': () => ({ workspaces: ctx.model.workspaces.map((w) => workspaces.entry(w)) }),
  'workspace.current': () => {
    const workspace = ctx.activeWorkspace();
    if (!workspace) throw notFound('workspace');
    return workspaces.ref(workspace);
  },
  'workspace.create': saved(ctx.model, async ({ name, cwd, layout, preset }) => {
    const dir = cwd ?? process.env.HOME ?? '/';
    workspaces.checkCwd(dir);
    const launch = preset ? presetLaunch(ctx.catalog, preset) : null;
    const workspace = workspaces.create(name ?? launch?.name ?? `Workspace ${ctx.model.workspaces.length + 1}`);
    try {
      const pane = await panes.create(workspace, { cwd: dir, ...(launch ? { agent: launch.agent, command: launch.command, env: launch.env } : {}) });
      workspace.layout = presetLayout(layout ?? DEFAULT_LAYOUT, [pane.surface_id]);
      workspace.focus = pane.surface_id;
      workspaces.show(workspace);
      return { ...workspaces.ref(workspace), surface_id: pane.surface_id };
    } catch (error) {
      workspaces.discard(workspace);
      throw error;
    }
  }),
  'workspace.select': saved(ctx.model, ({ index }) => {
    const workspace = ctx.model.workspaces[index];
    if (!workspace) throw invalid(`no workspace at index ${index}; there are ${ctx.model.workspaces.length}`, 'index_out_of_range', 'index');
    workspaces.select(index);
    return { index, id: workspace.id };
  }),
  'workspace.close': saved(ctx.model, async ({ index, workspace_id, unless_busy, force_worktree }) => {
    if (index !== undefined && workspace_id !== undefined) throw invalid('give index or workspace_id, not both', 'conflicting_params', 'workspace_id');
    const at = workspace_id === undefined ? (index ?? ctx.model.active) : ctx.model.workspaceIndex(workspace_id);
    const workspace = ctx.model.workspaces[at];
    if (!workspace) throw workspace_id === undefined ? invalid(`no workspace at index ${at}`, 'index_out_of_range', 'index') : invalid(`no workspace ${workspace_id}`, 'workspace_not_found', 'workspace_id');
    const closing = ctx.model.workspacePanes(workspace.id);
    const worktrees = await panes.close(closing, { unlessBusy: unless_busy, forceWorktree: force_worktree });
    workspaces.remove(workspace);
    return { closed: at, surfaces: closing.map((p) => p.surface_id), worktrees };
  }),
  'workspace.up': saved(ctx.model, async ({ name, layout, panes: specs }) => {
    if (!ctx.capabilities.orchestration && !ctx.capabilities.scripting) throw disabled('workspace.up', 'PANEFLOW_IPC_ORCHESTRATION');
    const problems: string[] = [];
    const names = new Set<string>();
    specs.forEach((p, i) => {
      if (p.command && p.agent) problems.push(`pane ${i + 1}: agent and command are exclusive`);
      if (p.agent && !resolveAgent(ctx.catalog, p.agent)) problems.push(`pane ${i + 1}: unknown agent '${p.agent}'`);
      if (p.prompt !== undefined && !p.agent) problems.push(`pane ${i + 1}: prompt requires agent`);
      if (!existsSync(p.cwd)) problems.push(`pane ${i + 1}: cwd ${p.cwd} does not exist`);
      if (p.name) {
        if (names.has(p.name.toLowerCase())) problems.push(`pane ${i + 1}: the name '${p.name}' is used twice`);
        names.add(p.name.toLowerCase());
        try {
          workspaces.checkName(p.name);
        } catch (error) {
          problems.push(`pane ${i + 1}: ${(error as Error).message}`);
        }
      }
    });
    if (specs.filter((p) => p.focus).length > 1) problems.push('at most one pane may have focus');
    if (problems.length > 0) throw invalid(problems.join('; '), 'invalid_spec');
    const workspace = workspaces.create(name);
    const created: PaneRecord[] = [];
    try {
      for (const p of specs) {
        created.push(await panes.create(workspace, { cwd: p.cwd, command: p.command, agent: p.agent, env: p.env, name: p.name ?? null, prompt: p.prompt, managed_worktree: p.managed_worktree ?? null }));
      }
    } catch (error) {
      await Promise.all(created.map((p) => panes.stopAndRemove(p.session)));
      for (const p of created) workspaces.closePane(p, true);
      workspaces.discard(workspace);
      throw error;
    }
    workspace.layout = presetLayout(layout, created.map((p) => p.surface_id));
    workspace.focus = created[Math.max(0, specs.findIndex((p) => p.focus))].surface_id;
    workspaces.show(workspace);
    return {
      workspace: workspaces.ref(workspace),
      surfaces: created.map((p) => ({ name: p.name, surface_id: p.surface_id, session: p.session })),
    };
  }),
  'workspace.restore_layout': saved(ctx.model, ({ layout }) => {
    const ids = leaves(layout as LayoutNode);
    const first = ctx.model.pane(ids[0]);
    if (!first) throw invalid(`surface ${ids[0]} does not exist`, 'layout_mismatch', 'layout');
    const workspace = ctx.workspaceOf(first);
    const expected = ctx.model
      .workspacePanes(workspace.id)
      .map((p) => p.surface_id)
      .sort((a, b) => a - b);
    if (JSON.stringify([...ids].sort((a, b) => a - b)) !== JSON.stringify(expected)) {
      throw invalid(`the layout must hold exactly the panes of workspace ${ctx.model.workspaceIndex(workspace.id)}: ${expected.join(', ')}`, 'layout_mismatch', 'layout');
    }
    workspace.layout = layout as LayoutNode;
    ctx.model.changed();
    workspaces.changed(workspace);
    return {};
  }),
});
