import { readProcFile, readProcStat, startTimeToEpochMs } from '@paneflow/proc';
import type { Observation } from '@paneflow/protocol';
import { readdirSync, readlinkSync } from 'node:fs';
import { matchProcess, type Catalog, type Match } from './match';

interface Candidate {
  pid: number;
  depth: number;
  startTime: number;
}

function children(pid: number): number[] {
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  const out: number[] = [];
  for (const tid of tids) {
    for (const child of (readProcFile(`/proc/${pid}/task/${tid}/children`) ?? '').split(' ')) if (child) out.push(Number(child));
  }
  return out;
}

function readArgv(pid: number): string[] | null {
  const raw = readProcFile(`/proc/${pid}/cmdline`);
  if (raw === null) return null;
  return raw.split('\0').filter((part, i, all) => part !== '' || i < all.length - 1);
}

const MAX_ARGV_ITEMS = 8;
const MAX_ARGV_BYTES = 1024;

function boundedArgv(argv: string[]): string[] {
  const out: string[] = [];
  let bytes = 0;
  for (const item of argv.slice(0, MAX_ARGV_ITEMS)) {
    bytes += Buffer.byteLength(item);
    if (bytes > MAX_ARGV_BYTES) break;
    out.push(item);
  }
  return out;
}

const RANK = { direct: 0, wrapper: 1 } as const;

/**
 * Reads which agent runs in the foreground of a PTY (Linux, REFERENCE.md §6.3): the terminal's
 * foreground process group from the session leader's `tpgid`, its members found breadth-first
 * through `/proc/<pid>/task/<tid>/children`, each read as start time, argv, start time again so
 * that a recycled pid never matches. The group leader wins if it matches; else the strongest,
 * then the shallowest, then the lowest pid.
 */
export class ForegroundReader {
  private cache: { key: string; observation: Observation | null } | null = null;
  /** False after a scan that met a process mid-exec: its answer is provisional, scan again soon. */
  settled = true;

  constructor(private readonly catalog: Catalog) {}

  scan(leader: number, title = ''): Observation | null {
    const leaderStat = readProcStat(leader);
    if (!leaderStat) return null;
    const group = leaderStat.tpgid > 0 ? leaderStat.tpgid : leaderStat.pgrp;
    // While the group leader is the same process running the same program with the same
    // children running the same programs (and the title is the same, for fx), so is the answer.
    // An exec keeps the pid and the start time, and may keep the name (node-pty's child is a copy
    // of the host, `node`, until it execs the agent, `node` again): the command line tells them
    // apart. A command a shell runs is a new child, and that child is a copy of the shell until
    // it execs the command: read in between, it must not stand for what it becomes.
    const childPids = readProcFile(`/proc/${group}/task/${group}/children`) ?? '';
    const key = [
      group,
      readProcStat(group)?.startTime ?? 0,
      readProcFile(`/proc/${group}/comm`),
      readProcFile(`/proc/${group}/cmdline`),
      ...childPids.split(' ').filter(Boolean).map((child) => `${child}:${readProcFile(`/proc/${child}/cmdline`)}`),
      title,
    ].join('\0');
    if (this.cache?.key === key) return this.cache.observation;
    const candidates: Candidate[] = [];
    const queue = [{ pid: leader, depth: 0 }];
    const seen = new Set<number>();
    while (queue.length > 0) {
      const next = queue.shift()!;
      if (seen.has(next.pid)) continue;
      seen.add(next.pid);
      const stat = next.pid === leader ? leaderStat : readProcStat(next.pid);
      if (!stat) continue;
      if (stat.pgrp === group && stat.sid === leaderStat.sid) candidates.push({ ...next, startTime: stat.startTime });
      for (const child of children(next.pid)) queue.push({ pid: child, depth: next.depth + 1 });
    }
    let best: { match: Match; candidate: Candidate; argv: string[]; name: string } | null = null;
    // A process in the middle of an exec has its new name but no command line yet: an answer
    // read then is not kept, or the agent it becomes would stay unseen until the group changes.
    let unread = false;
    for (const candidate of candidates) {
      // Start time, argv, start time again: a pid recycled in between never matches.
      const argv = readArgv(candidate.pid);
      if (!argv || argv.length === 0) {
        unread = true;
        continue;
      }
      let name = argv[0];
      let match = matchProcess({ argv, title }, this.catalog);
      if (!match) {
        name = readProcFile(`/proc/${candidate.pid}/comm`)?.trim() ?? '';
        match = matchProcess({ argv, exe: name, title }, this.catalog);
      }
      if (!match || readProcStat(candidate.pid)?.startTime !== candidate.startTime) continue;
      const isGroupLeader = candidate.pid === group;
      const better =
        !best ||
        (isGroupLeader && best.candidate.pid !== group) ||
        (best.candidate.pid !== group &&
          (RANK[match.strength] - RANK[best.match.strength] || candidate.depth - best.candidate.depth || candidate.pid - best.candidate.pid) < 0);
      if (better) best = { match, candidate, argv, name: name.split('/').pop()! };
    }
    const observation: Observation | null = best
      ? {
          id: best.match.runtime.slug,
          pid: best.candidate.pid,
          pid_started_at: best.candidate.startTime,
          pid_started_at_ms: startTimeToEpochMs(best.candidate.startTime),
          process_group: group,
          process_name: best.name,
          ...(best.match.strength === 'direct' ? { argv: boundedArgv(best.argv) } : {}),
        }
      : null;
    this.settled = !unread;
    if (!unread) {
      this.cache = { key, observation };
      return observation;
    }
    // Mid-exec, the agent seen last may be the very process that is changing: it still counts.
    const last = this.cache?.observation;
    const stillThere = last && candidates.some((c) => c.pid === last.pid && c.startTime === last.pid_started_at);
    return !observation && stillThere ? last : observation;
  }
}

/** What runs in front of a pane, agent or not: the foreground group leader's command line and cwd. */
export function describeForeground(leader: number): { cmd: string; cwd: string | null } {
  const stat = readProcStat(leader);
  if (!stat) return { cmd: '', cwd: null };
  const group = stat.tpgid > 0 ? stat.tpgid : stat.pgrp;
  const argv = readArgv(group) ?? readArgv(leader) ?? [];
  let cwd: string | null = null;
  try {
    cwd = readlinkSync(`/proc/${group}/cwd`);
  } catch {
    // gone, or not ours to read
  }
  return { cmd: argv.join(' '), cwd };
}
