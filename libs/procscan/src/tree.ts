import { hasExited, type ProcStat, readProcStat, ticksToMs } from '@paneflow/proc';
import { readdirSync } from 'node:fs';

/**
 * The processes of a PTY session: the leader, its descendants, and whatever else still runs in its
 * session (a double-forked child is reparented away from the leader but stays in the session).
 */
export function sessionProcesses(leader: number): number[] {
  const all: Array<[number, ProcStat]> = [];
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid)) continue;
    const s = readProcStat(pid);
    if (s) all.push([pid, s]);
  }
  const members = new Set<number>();
  if (all.some(([pid]) => pid === leader)) members.add(leader);
  for (const [pid, s] of all) if (s.sid === leader) members.add(pid);
  // Descendants that left the session (setsid) are still the pane's: walk down from the members.
  let grew = true;
  while (grew) {
    grew = false;
    for (const [pid, s] of all) {
      if (!members.has(pid) && members.has(s.ppid)) {
        members.add(pid);
        grew = true;
      }
    }
  }
  return [...members];
}

/**
 * The CPU time a session's process tree has used, in milliseconds: each member's own and its
 * reaped children's. A member that exits and is reaped outside the tree takes its share along,
 * so the total can fall: a caller compares totals for a change, not for growth.
 */
export function sessionCpuMs(leader: number): { cpu_ms: number; processes: number } {
  const pids = sessionProcesses(leader);
  let ticks = 0;
  for (const pid of pids) ticks += readProcStat(pid)?.cpuTicks ?? 0;
  return { cpu_ms: ticksToMs(ticks), processes: pids.length };
}

function signalAll(pids: number[], signal: NodeJS.Signals) {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
}

const alive = (pid: number) => !hasExited(readProcStat(pid));

/**
 * Ends a pane's process tree within `budgetMs`: HUP and TERM (an interactive shell ignores TERM),
 * then KILL for whatever is left after the grace period. Resolves once none of them runs.
 */
export async function stopTree(leader: number, budgetMs = 5000, graceMs = 2000): Promise<boolean> {
  const deadline = Date.now() + budgetMs;
  let pids = sessionProcesses(leader);
  signalAll(pids, 'SIGHUP');
  signalAll(pids, 'SIGTERM');
  const graceEnd = Date.now() + graceMs;
  while (Date.now() < graceEnd) {
    pids = pids.filter(alive);
    if (pids.length === 0) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  pids = [...new Set([...pids.filter(alive), ...sessionProcesses(leader)])];
  signalAll(pids, 'SIGKILL');
  while (Date.now() < deadline) {
    pids = pids.filter(alive);
    if (pids.length === 0) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return false;
}
