import { readFileSync } from 'node:fs';

/** The fields of /proc/<pid>/stat that Paneflow uses. */
export interface ProcStat {
  /** R, S, D, … ; Z and X mean the process has exited (a zombie waits only to be reaped). */
  state: string;
  ppid: number;
  pgrp: number;
  sid: number;
  /** The foreground process group of the process's terminal. */
  tpgid: number;
  /** Kernel start time, in clock ticks since boot. */
  startTime: number;
}

export function readProcStat(pid: number): ProcStat | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // The command name (field 2) is in parentheses and may itself hold spaces or parentheses.
  const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { state: f[0], ppid: Number(f[1]), pgrp: Number(f[2]), sid: Number(f[3]), tpgid: Number(f[5]), startTime: Number(f[19]) };
}

export function hasExited(stat: ProcStat | null): boolean {
  return stat === null || stat.state === 'Z' || stat.state === 'X';
}

/**
 * A running process's kernel start time, or null when it is gone — exited, even if nobody has
 * reaped it yet. With the pid it names a process for good: a recycled pid has another start time.
 */
export function processStartTime(pid: number): number | null {
  const stat = readProcStat(pid);
  return hasExited(stat) ? null : stat!.startTime;
}

/** True when the process `pid` runs and is the one that started at `startedAt`. */
export function isSameProcess(pid: number, startedAt: number): boolean {
  return processStartTime(pid) === startedAt;
}
