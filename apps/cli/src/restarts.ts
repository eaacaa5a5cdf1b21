// `restart` and `restore`: panes brought back, their agents' conversations resumed (REFERENCE.md §1.2).
import type { PublicMethods } from '@paneflow/protocol/public-protocol';
import type { ResultOf } from '@paneflow/protocol/schema';
import { RESUME_WAIT_MS } from '@paneflow/protocol/limits';
import type { SessionRow } from '@paneflow/protocol/status';
import { restoreDeadlineMs } from '@paneflow/protocol/deadlines';
import { CliError } from './errors';
import { ensureInstance, request } from './instance';
import { printJson } from './output';
import { resolveOne, targetOf, type Where } from './select';
import { displayText } from '@paneflow/view';

type Restarted = ResultOf<PublicMethods, 'surface.restart'>;

/** One line a person reads: what came back, and how; cleaned by `displayText` (the name and the reason are not ours). */
export function restartLine(name: string, result: Restarted): string {
  return displayText(restartWords(name, result));
}

function restartWords(name: string, result: Restarted): string {
  const { restart } = result;
  const id = restart.provider_session_id;
  const why = restart.reason ? ` (${restart.reason})` : '';
  if (restart.outcome === 'failed') return `${name}: resume failed: ${restart.reason ?? 'unknown'}; the pane keeps its screen — \`paneflow restart ${result.surface_id} --fresh\` starts it anew`;
  if (restart.mode === 'launch') return `${name}: started again from its launch command${why}`;
  const how = restart.mode === 'session' ? `conversation ${id}` : 'its latest conversation in this directory';
  return restart.outcome === 'resumed' ? `${name}: resumed ${how}${why}` : `${name}: resuming ${how}${why}; not confirmed within ${RESUME_WAIT_MS / 1000} s`;
}

const failed = (results: Restarted[]) => results.some((r) => r.restart.outcome === 'failed');

export async function restart(selector: string, options: { fresh: boolean; json: boolean; where: Where }): Promise<number> {
  const target = await resolveOne(selector, options.where);
  const result = await request('surface.restart', { ...targetOf(target), ...(options.fresh ? { fresh: true } : {}) });
  if (options.json) printJson(result);
  else process.stdout.write(restartLine(target.name ?? `pane ${target.surface_id}`, result) + '\n');
  return failed([result]) ? 1 : 0;
}

/** Every agent pane that is not running (of one workspace, or all), two at a time. */
export async function restore(options: { workspace: string | undefined; json: boolean }): Promise<number> {
  await ensureInstance();
  const workspaceId = options.workspace === undefined ? undefined : await workspaceIdOf(options.workspace);
  const [{ sessions }, { surfaces }] = await Promise.all([request('session.list', { machine: null }), request('surface.list', { scope: 'all', machine: null })]);
  const { restored } = await request('session.restore', workspaceId ? { workspace_id: workspaceId } : {}, restoreDeadlineMs(sessions, workspaceId));
  if (options.json) printJson({ restored });
  else if (restored.length === 0) process.stdout.write('nothing to restore: every agent pane is running\n');
  else for (const result of restored) process.stdout.write(restartLine(surfaces.find((s) => s.surface_id === result.surface_id)?.name ?? `pane ${result.surface_id}`, result) + '\n');
  return failed(restored) ? 1 : 0;
}

async function workspaceIdOf(name: string): Promise<string> {
  const { workspaces } = await request('workspace.list', {});
  const found = /^\d+$/.test(name) ? workspaces.find((w) => w.index === Number(name)) : workspaces.find((w) => w.name === name);
  if (!found) throw new CliError(`no workspace '${name}'`, 3);
  return found.id;
}

/** Why a session is not running, in words (`sessions --lost`). */
export function endedBecause(row: SessionRow): string {
  const base =
    row.lifecycle === 'lost'
      ? row.lost_reason === 'reboot'
        ? 'lost: the machine restarted'
        : row.lost_reason === 'host_crash'
          ? 'lost: the host died'
          : 'lost'
      : row.lifecycle === 'failed'
        ? 'could not start'
        : row.exit_code !== null
          ? `exited with code ${row.exit_code}`
          : 'exited';
  return row.restart?.outcome === 'failed' ? `${base} (resume failed: ${row.restart.reason})` : base;
}
