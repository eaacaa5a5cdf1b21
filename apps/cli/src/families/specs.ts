// `new`, `up` and `flow run`: a workspace, or workspaces and flows of agents from TOML specs; each
// needs the runtimes catalog (presets, agents), which no read-only verb loads.
import { findPreset, platformOf, runtimeCatalog, suggestedPresets } from '@paneflow/procscan';
import { nameFault } from '@paneflow/protocol/names';
import { displayText } from '@paneflow/view';
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { CliError } from '../errors';
import { flowRun } from '../flow';
import { ensureInstance, request } from '../instance';
import { printJson } from '../output';
import { up } from '../up';
import { flag, scopeOf, str, type Run } from './common';

/** A preset id this machine has, checked before anything starts (serve checks again, from the same catalog). */
function checkPreset(id: string): void {
  const platform = platformOf(process.platform);
  if (findPreset(runtimeCatalog(), id, platform)) return;
  const known = suggestedPresets(runtimeCatalog(), platform).map((preset) => preset.id);
  throw new CliError(`unknown preset '${displayText(id)}'; presets here: ${known.join(', ') || 'none'}`, 2);
}

export const run: Record<string, Run> = {
  async new(p) {
    const cwd = flag(p, 'cwd');
    if (cwd !== undefined && (!existsSync(cwd) || !statSync(cwd).isDirectory())) throw new CliError(`--cwd ${cwd} is not a directory`, 2);
    const preset = flag(p, 'preset');
    if (preset !== undefined) checkPreset(preset);
    const name = flag(p, 'name');
    const fault = name ? nameFault(name) : null;
    if (fault) throw new CliError(`--name ${fault.message}`, 2);
    await ensureInstance();
    printJson(await request('workspace.create', { ...(name ? { name } : {}), ...(cwd ? { cwd: resolve(cwd) } : {}), ...(preset ? { preset } : {}) }));
    return 0;
  },
  up: (p) => up(str(p, 'file'), !!flag(p, 'dry-run')),
  'flow run': (p) => flowRun(str(p, 'file'), { dryRun: !!flag(p, 'dry-run'), json: !!flag(p, 'json'), scope: scopeOf(p) }),
};
