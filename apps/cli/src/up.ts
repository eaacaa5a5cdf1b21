import { assignPorts, parseWorkspace, SpecError, type PanePlan, type WorkspacePlan } from '@paneflow/spec';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ensureInstance, request } from './instance';
import { CliError } from './errors';
import { printJson } from './output';
import { freeStrides, provisionWorktree } from './provision';
import { realSpecHost } from './spec-host';

/** Reads a spec file; a file that cannot be read is a usage error, like one that does not parse. */
export function readSpec(file: string): { path: string; text: string } {
  const path = resolve(file);
  try {
    return { path, text: readFileSync(path, 'utf8') };
  } catch (error) {
    throw new CliError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, 2);
  }
}

export function specError(error: unknown): never {
  if (error instanceof SpecError) throw new CliError(error.message, 2);
  throw error;
}

/** A pane of a plan as workspace.up and surface.split take it. */
export function paneRequest(pane: PanePlan) {
  return {
    ...(pane.name ? { name: pane.name } : {}),
    cwd: pane.cwd,
    ...(pane.agent ? { agent: pane.agent } : pane.command ? { command: pane.command } : {}),
    ...(pane.prompt !== null ? { prompt: pane.prompt } : {}),
    focus: pane.focus,
    env: pane.env,
    ...(pane.worktree
      ? { managed_worktree: { path: pane.worktree.path, repo_root: pane.worktree.repo_root, branch: pane.worktree.branch, teardown: pane.worktree.teardown, action: pane.worktree.action } }
      : {}),
  };
}

export async function withPorts<P extends PanePlan>(panes: P[], base: number): Promise<P[]> {
  const needed = panes.filter((p) => p.uses_port_offset).length;
  return needed ? assignPorts(panes, await freeStrides(base, needed)) : panes;
}

/**
 * The gates a spec's run needs, asked of serve before anything is made (REFERENCE.md §2.4, §5:
 * every check before any side effect): `workspace.up` (and a split that runs something) needs
 * orchestration or scripting; a flow that submits needs scripting; one that sends, scripting or
 * `ai_unrestricted`. A refused run leaves no worktree, branch, setup or workspace behind.
 */
export async function checkGates(needs: { submits?: boolean; sends?: boolean } = {}): Promise<void> {
  const capabilities = await request('system.capabilities', {});
  if (!capabilities.orchestration && !capabilities.scripting) {
    throw new CliError('workspace.up disabled: relaunch with PANEFLOW_IPC_ORCHESTRATION=1 (or PANEFLOW_IPC_SCRIPTING=1); nothing was made', 1);
  }
  if (needs.submits && !capabilities.scripting) throw new CliError('this flow submits (submit = true): relaunch serve with PANEFLOW_IPC_SCRIPTING=1; nothing was made', 1);
  if (needs.sends && !capabilities.scripting && !capabilities.ai_unrestricted) {
    throw new CliError('this flow has send steps: surface.send_text disabled: relaunch with PANEFLOW_IPC_SCRIPTING=1; nothing was made', 1);
  }
}

/** `paneflow up <file>` (REFERENCE.md §5.1–§5.4). */
export async function up(file: string, dryRun: boolean): Promise<number> {
  const { path, text } = readSpec(file);
  let plan: WorkspacePlan;
  try {
    plan = parseWorkspace(text, path, realSpecHost());
  } catch (error) {
    specError(error);
  }
  const panes = await withPorts(plan.panes, plan.port_base);
  if (dryRun) {
    printJson({ ...plan, panes });
    return 0;
  }
  await ensureInstance();
  await checkGates();
  const warnings: string[] = [];
  for (const pane of panes) if (pane.worktree) warnings.push(...(await provisionWorktree(pane.worktree)));
  const result = await request('workspace.up', { name: plan.name, layout: plan.layout, panes: panes.map(paneRequest) });
  for (const warning of warnings) process.stderr.write(`paneflow: warning: ${warning}\n`);
  printJson({ ...result, warnings });
  return 0;
}
