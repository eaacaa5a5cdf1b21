// What a face's sidebar and pane headers show, from what serve pushes (REFERENCE.md §3.9). Pure:
// no face computes an agent's state, it only says what the agent declared.
import type { StatusObject } from '@paneflow/protocol/status';
import type { DeclaredStatus } from '@paneflow/protocol/wire';
import { displayText } from './text';

/** The fields of a status object (§3.7) a face reads. */
export type PaneStatus = Pick<
  StatusObject,
  'surface_id' | 'session' | 'surface_name' | 'tool' | 'runtime_id' | 'state' | 'status' | 'reason' | 'declared' | 'unread' | 'message' | 'lifecycle' | 'restart' | 'revision' | 'hidden' | 'subagents' | 'supervision'
>;
type Declared = Pick<DeclaredStatus, 'state' | 'kind' | 'title' | 'message'>;

export type RowMark = 'working' | 'need_you' | 'error' | 'done' | 'no_status' | 'ended' | 'none';

/**
 * The word each face's badge says for a mark (§3.9), the same in attach, the desktop and the phone.
 * An ended agent's badge says why it is not running (`endedNotice`); `Not running` is for a face
 * with no room for why.
 */
export const BADGE_WORDS: Readonly<Record<Exclude<RowMark, 'none'>, string>> = {
  working: 'Working',
  need_you: 'Need you',
  error: 'Error',
  done: 'Done',
  no_status: 'No status',
  ended: 'Not running',
};

export interface AgentRow {
  surface_id: number;
  label: string;
  mark: RowMark;
  /** The agent's message while it needs you. */
  message: string | null;
  /** How many subagents it runs now (`subagentsText`), or null. */
  subagents: string | null;
}

/** The mark of an agent's row: its current record, as §3.9 draws it. */
export function rowMark(status: PaneStatus): RowMark {
  // A stopped agent declares nothing any more: what it said last would be a lie.
  if (endedNotice(status)) return 'ended';
  if (status.reason === 'no_signal') return 'no_status';
  switch (status.status) {
    case 'busy':
      return 'working';
    case 'attention':
      return 'need_you';
    case 'errored':
      return 'error';
  }
  return status.declared?.state === 'done' && status.unread ? 'done' : 'none';
}

/**
 * One row per agent pane that serve does not hide, in pane order, except that agents that need you come first (§3.9: the
 * row moves to the top of the Agents section). Labels and messages are cleaned by `displayText`.
 */
export function agentRows(statuses: PaneStatus[], label: (status: PaneStatus) => string): AgentRow[] {
  // `hidden`: serve's verdict from the config's visibility keys (§10).
  const rows = statuses
    .filter((s) => s.tool !== null && !s.hidden)
    .map((s) => ({ surface_id: s.surface_id, label: displayText(label(s)), mark: rowMark(s), message: needYouMessage(s), subagents: subagentsText(s) }));
  return [...rows.filter((r) => r.mark === 'need_you'), ...rows.filter((r) => r.mark !== 'need_you')];
}

function needYouMessage(status: PaneStatus): string | null {
  const message = rowMark(status) === 'need_you' ? (status.message ?? status.declared?.message ?? null) : null;
  return message === null ? null : displayText(message);
}

/**
 * The subagents an agent runs now (its `SubagentStart` hooks without a `SubagentStop`, §7.2), in
 * the words every face shows: `1 subagent`, `3 subagents`; null when none runs or the agent does
 * not (an ended agent's subagents ended with it).
 */
export function subagentsText(status: Pick<PaneStatus, 'subagents' | 'tool' | 'lifecycle' | 'restart'>): string | null {
  const count = status.subagents?.length ?? 0;
  if (count === 0 || endedNotice(status)) return null;
  return `${count} subagent${count === 1 ? '' : 's'}`;
}

/** What a face offers on an agent pane that is not running: its words, and the restart it starts. */
export interface EndedNotice {
  /** The sidebar's badge. */
  badge: 'Lost' | 'Exited' | 'Failed';
  /** The pane's line: why, in a few words. */
  text: string;
  /** `resume`: the agent's conversation (serve picks by id, latest, or launch); `fresh`: the launch. */
  action: 'resume' | 'fresh';
}

/**
 * An agent pane whose process is gone: "lost — resume" after a host crash or a reboot, "exited —
 * resume" after its agent ended, and a failed resume said as such, offering a fresh start instead.
 */
export function endedNotice(status: Pick<PaneStatus, 'tool' | 'lifecycle' | 'restart'>): EndedNotice | null {
  if (status.tool === null || status.lifecycle === 'live' || status.lifecycle === 'starting') return null;
  if (status.restart?.outcome === 'failed') return { badge: 'Failed', text: `resume failed: ${displayText(status.restart.reason ?? 'unknown')}`, action: 'fresh' };
  if (status.lifecycle === 'lost') return { badge: 'Lost', text: 'lost', action: 'resume' };
  return status.lifecycle === 'failed' ? { badge: 'Failed', text: 'could not start', action: 'resume' } : { badge: 'Exited', text: 'exited', action: 'resume' };
}

/** The pane header's status: `<state>[: <kind>] · <msg or title>` (§3.9), for any program, cleaned by `displayText`. */
export function headerStatus(declared: Declared | null): string | null {
  if (!declared || declared.state === 'idle') return null;
  const head = declared.kind ? `${declared.state}: ${declared.kind}` : declared.state;
  const detail = declared.message ?? declared.title;
  return displayText(detail ? `${head} · ${detail}` : head);
}
