import { isMachineName, MACHINE_NAME_PATTERN } from '@paneflow/protocol/machine-names';
import type { Scope } from '@paneflow/protocol/wire';
import { displayText } from '@paneflow/view';
import { CliError, UsageError } from '../errors';
import type { Where } from '../select';
import type { Parsed } from '../usage';

/** What every verb reads of its parsed words. */
export type Run = (parsed: Parsed) => Promise<number>;

export function scopeOf(parsed: Parsed): Scope {
  const scope = parsed.flags.scope ?? 'workspace';
  if (scope !== 'workspace' && scope !== 'all') throw new CliError(`--scope is workspace or all, not '${String(scope)}'`, 2);
  return scope;
}

/** A machine's name as a person typed it (`--machine`, `machine add NAME`): one the protocol takes, or a usage error before any request. */
export function machineName(text: string, what = '--machine'): string {
  if (!isMachineName(text)) throw new UsageError(`${what} needs a machine's name (${MACHINE_NAME_PATTERN}; see \`paneflow machine ls\`), not '${displayText(text)}'`);
  return text;
}

/** `--machine NAME`, checked; absent, none. */
export const machineOf = (parsed: Parsed): { machine?: string } => (parsed.flags.machine === undefined ? {} : { machine: machineName(String(parsed.flags.machine)) });

/** Where a verb's selector resolves: its `--scope`, and its `--machine`. */
export const whereOf = (parsed: Parsed): Where => ({ scope: scopeOf(parsed), ...machineOf(parsed) });

export const str = (parsed: Parsed, name: string) => parsed.args[name] as string;
export const flag = <T = string>(parsed: Parsed, name: string) => parsed.flags[name] as T | undefined;

/** The caller's own workspace, when it runs inside a pane. */
export const callerWorkspace = () => (process.env.PANEFLOW_WORKSPACE_ID ? { workspace_id: process.env.PANEFLOW_WORKSPACE_ID } : {});
