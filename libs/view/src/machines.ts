// Other machines (issue 32) as every face words them: a link's state, and how old a far row is.
import type { MachineRow } from '@paneflow/protocol/machines';
import { ageText } from './supervision';
import { displayText } from './text';

/**
 * A link as `machine ls` shows it: its state and for how long (`connected 5m`), and why when it
 * is not connected (`offline 40s: Permission denied (publickey).`). The reason is ssh's or the far
 * side's own words, from another machine: cleaned.
 */
export function machineStateText(row: Pick<MachineRow, 'state' | 'reason' | 'since_ms'>, nowMs: number): string {
  const state = `${row.state} ${ageText(nowMs - row.since_ms)}`;
  return displayText(row.reason && row.state !== 'connected' ? `${state}: ${row.reason}` : state);
}

/**
 * What a far machine's rows are worth: null while its link is up (they are live); else its state
 * and the age of what is shown, from when its serve last answered (`offline 3m`, `reconnecting 40s`).
 */
export function machineRowsAge(row: Pick<MachineRow, 'state' | 'since_ms' | 'last_seen_ms'>, nowMs: number): string | null {
  if (row.state === 'connected') return null;
  return `${row.state} ${ageText(nowMs - (row.last_seen_ms ?? row.since_ms))}`;
}

/**
 * A row's MACHINE cell: `-` for this machine (no machine name can be one), the name of another,
 * with `machineRowsAge` after it while its rows are not live (`gpu1 (offline 3m)`). Cleaned.
 */
export function machineCellText(machine: string | null | undefined, machines: readonly MachineRow[], nowMs: number): string {
  if (!machine) return '-';
  const row = machines.find((m) => m.name === machine);
  const age = row ? machineRowsAge(row, nowMs) : null;
  return displayText(age ? `${machine} (${age})` : machine);
}
