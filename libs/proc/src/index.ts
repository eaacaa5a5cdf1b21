// Process identity on Linux (REFERENCE.md §1.2, §6.3.2): a process is (pid, kernel start time),
// never a pid alone. Read by the host, serve, procscan, the instance's locks and the hook.
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';

const buffer = Buffer.alloc(64 * 1024);

/**
 * The text of a small /proc file, or null when the process is gone. One open, reads, one close:
 * /proc reads are the cost of a foreground scan, and readFileSync spends extra calls on each.
 */
export function readProcFile(path: string): string | null {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return null;
  }
  try {
    let length = 0;
    const chunks: Buffer[] = [];
    for (;;) {
      const n = readSync(fd, buffer, length, buffer.length - length, null);
      if (n === 0) break;
      length += n;
      if (length === buffer.length) {
        chunks.push(Buffer.from(buffer));
        length = 0;
      }
    }
    chunks.push(buffer.subarray(0, length));
    return Buffer.concat(chunks).toString('utf8');
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** The fields of /proc/<pid>/stat that Paneflow uses. */
export interface ProcStat {
  /** The command name the kernel keeps (at most 15 bytes): `bash`, `node`. */
  comm: string;
  /** R, S, D, … ; Z and X mean the process has exited (a zombie waits only to be reaped). */
  state: string;
  ppid: number;
  pgrp: number;
  sid: number;
  /** The foreground process group of the process's terminal. */
  tpgid: number;
  /** Kernel start time, in clock ticks since boot. */
  startTime: number;
  /** CPU time used, in clock ticks: its own (utime + stime) and its reaped children's (cutime + cstime). */
  cpuTicks: number;
}

export function readProcStat(pid: number): ProcStat | null {
  const text = readProcFile(`/proc/${pid}/stat`);
  if (text === null) return null;
  // The command name (field 2) is in parentheses and may itself hold spaces or parentheses.
  const close = text.lastIndexOf(')');
  const f = text.slice(close + 2).split(' ');
  return { comm: text.slice(text.indexOf('(') + 1, close), state: f[0], ppid: Number(f[1]), pgrp: Number(f[2]), sid: Number(f[3]), tpgid: Number(f[5]), startTime: Number(f[19]), cpuTicks: Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]) };
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

let bootTimeMs: number | null = null;

/** A kernel start time (clock ticks since boot) as epoch milliseconds, to compare with clocks. */
export function startTimeToEpochMs(startTime: number): number {
  if (bootTimeMs === null) {
    const btime = /^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'));
    bootTimeMs = btime ? Number(btime[1]) * 1000 : 0;
  }
  return bootTimeMs + ticksToMs(startTime);
}

/** Clock ticks (USER_HZ, 100 on every Linux architecture Paneflow runs on) as milliseconds. */
export const ticksToMs = (ticks: number): number => ticks * 10;

/** A process's environment as it started, or null when it is gone or not ours to read. */
export function processEnvironment(pid: number): Record<string, string> | null {
  const text = readProcFile(`/proc/${pid}/environ`);
  if (text === null) return null;
  const env: Record<string, string> = {};
  for (const entry of text.split('\0')) {
    const equals = entry.indexOf('=');
    if (equals > 0) env[entry.slice(0, equals)] = entry.slice(equals + 1);
  }
  return env;
}

/** The kernel's id of this boot: another one means the machine restarted. */
export function bootId(): string {
  return readProcFile('/proc/sys/kernel/random/boot_id')?.trim() ?? 'unknown';
}
export { keepOutputAtExit } from './pty-exit';
export { writeNow } from './pty-write';
export * from './read';
