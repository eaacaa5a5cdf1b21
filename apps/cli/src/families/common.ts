import type { Scope } from '@paneflow/protocol/wire';
import { CliError } from '../errors';
import type { Parsed } from '../usage';

/** What every verb reads of its parsed words. */
export type Run = (parsed: Parsed) => Promise<number>;

export function scopeOf(parsed: Parsed): Scope {
  const scope = parsed.flags.scope ?? 'workspace';
  if (scope !== 'workspace' && scope !== 'all') throw new CliError(`--scope is workspace or all, not '${String(scope)}'`, 2);
  return scope;
}

export const str = (parsed: Parsed, name: string) => parsed.args[name] as string;
export const flag = <T = string>(parsed: Parsed, name: string) => parsed.flags[name] as T | undefined;

/** The caller's own workspace, when it runs inside a pane. */
export const callerWorkspace = () => (process.env.PANEFLOW_WORKSPACE_ID ? { workspace_id: process.env.PANEFLOW_WORKSPACE_ID } : {});
