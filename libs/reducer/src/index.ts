/**
 * The status model (REFERENCE.md §3): what a session's declared record, lifecycle and identified
 * agent mean — a reduced status, a state sequence, an outcome, unread, a CLI state, a signal reason
 * — and which notices a transition raises, once. Pure: time comes in as `nowMs`.
 */

import type { CliState, DeclaredStatus, NoticeKind, ReducedStatus, SignalReason } from '@paneflow/protocol';
import { cutUtf8 } from './text';

export * from './turns';

/** The current record (OSC7501.md §8.6) as the status model reads it. */
type Declared = DeclaredStatus;

/** The known agent in the pane's foreground (or in front when the session exited). */
export interface Agent {
  runtimeId: string;
  pid: number;
  /** Kernel start time: with the pid, the agent's identity. */
  startedAt: number;
  startedAtMs: number;
  /** When it was first seen. */
  identifiedAtMs: number;
}

/** Metadata from hooks: it fills messages, it never moves the state. */
export interface HookMetadata {
  notificationMessage: string | null;
  lastResult: string | null;
}

export interface Input {
  record: Declared | null;
  running: boolean;
  agent: Agent | null;
  /** The host's last OSC 7501 query or report in this pane. */
  lastSignalAtMs: number | null;
  hook: HookMetadata;
  nowMs: number;
}

/** What serve keeps per session, and persists across its own restarts. */
export interface Entry {
  status: ReducedStatus;
  stateSeq: number;
  outcome: string | null;
  unread: boolean;
  reason: SignalReason;
  /** The agent identity that has queried or reported: it never falls back to no_signal. */
  signalledIdentity: string | null;
  /**
   * `new` and `restored` entries take their first reduction without a notice (a session found
   * mid-turn, or rebuilt after a serve restart); a new entry's state_seq starts there at 0, a
   * restored one counts a change that happened while serve was away.
   */
  phase: 'new' | 'restored' | 'settled';
}

export interface Notice {
  kind: NoticeKind;
  body: string | null;
}

/** An agent identified this recently that has said nothing is still being detected. */
export const DETECTION_WINDOW_MS = 3000;
const OUTCOME_MESSAGE_BYTES = 128;

export function newEntry(): Entry {
  return { status: 'idle', stateSeq: 0, outcome: null, unread: false, reason: 'no_agent', signalledIdentity: null, phase: 'new' };
}

/** An entry restored after a serve restart: it keeps its sequence, and its next reduction is silent. */
export function restoredEntry(saved: Pick<Entry, 'status' | 'stateSeq' | 'outcome' | 'unread'>): Entry {
  return { ...newEntry(), ...saved, phase: 'restored' };
}

export function identityOf(agent: Agent): string {
  return `${agent.runtimeId}:${agent.pid}:${agent.startedAt}`;
}

/** REFERENCE.md §3.2. */
export function reducedStatus(input: Pick<Input, 'record' | 'running' | 'agent'>): ReducedStatus {
  const { record, running, agent } = input;
  if (!agent) return 'idle';
  if (record?.state === 'error') return 'errored';
  if (record?.state === 'working' && running) return 'busy';
  if (record?.state === 'blocked' && running) return 'attention';
  return 'idle';
}

/** REFERENCE.md §3.3, given whether this identity has signalled before. */
function reasonFor(input: Input, signalledIdentity: string | null): SignalReason {
  const { agent, record, lastSignalAtMs, nowMs } = input;
  if (!agent) return 'no_agent';
  if (record) return 'declared';
  // The start time is known to 10 ms; a query in the same tick as the start still counts.
  const spokeSinceStart = lastSignalAtMs !== null && lastSignalAtMs >= agent.startedAtMs - 10;
  if (spokeSinceStart || signalledIdentity === identityOf(agent)) return 'capable';
  return nowMs - agent.identifiedAtMs < DETECTION_WINDOW_MS ? 'detecting' : 'no_signal';
}

/** REFERENCE.md §3.4: done → completed, error → failed[:message], working → none, else kept. */
function outcomeFor(record: Declared | null, previous: string | null): string | null {
  switch (record?.state) {
    case 'done':
      return 'completed';
    case 'error':
      return record.message ? `failed:${cutUtf8(record.message, OUTCOME_MESSAGE_BYTES)}` : 'failed';
    case 'working':
      return null;
    default:
      return previous;
  }
}

/**
 * One reduction. `state_seq` advances when the reduced status changes and only then; notices are
 * decided here, once per transition, and never for the first reduction of an entry (a session
 * found mid-turn, or rebuilt after a serve restart, takes its state silently).
 */
export function reduce(entry: Entry, input: Input): { entry: Entry; notices: Notice[] } {
  const status = reducedStatus(input);
  const reason = reasonFor(input, entry.signalledIdentity);
  const signalledIdentity = input.agent && (reason === 'declared' || reason === 'capable') ? identityOf(input.agent) : entry.signalledIdentity;
  const moved = status !== entry.status && entry.phase !== 'new';
  const notices: Notice[] = [];
  let unread = entry.unread;
  if (moved && entry.phase === 'settled' && input.agent) {
    if (status === 'attention') notices.push({ kind: 'needs_input', body: input.record?.message ?? input.hook.notificationMessage });
    if (status === 'errored') notices.push({ kind: 'error', body: input.record?.message ?? null });
    if (status === 'idle' && (entry.status === 'busy' || entry.status === 'attention') && input.record?.state === 'done') {
      notices.push({ kind: 'finished', body: input.hook.lastResult ?? input.record.message });
      unread = true;
    }
  }
  if (moved && status === 'busy') unread = false;
  return {
    entry: {
      status,
      stateSeq: entry.stateSeq + (moved ? 1 : 0),
      outcome: outcomeFor(input.record, entry.outcome),
      unread,
      reason,
      signalledIdentity,
      phase: 'settled',
    },
    notices,
  };
}

export interface CliStateOptions {
  /** The supervisor's stall observation holds (serve decides it from output, CPU, hooks and records). */
  stalled: boolean;
}

/** REFERENCE.md §3.6, first matching row wins. `stalled` is display only: a busy agent serve observes stalled. */
export function cliState(entry: Pick<Entry, 'status' | 'reason'>, record: Declared | null, hasAgent: boolean, options: CliStateOptions): CliState {
  if (!hasAgent) return 'idle';
  if (entry.status === 'errored') return 'errored';
  if (entry.status === 'busy') return options.stalled ? 'stalled' : 'thinking';
  if (entry.status === 'attention') return 'waiting_for_input';
  if (entry.reason === 'detecting' || entry.reason === 'no_signal') return 'unknown_running';
  if (record?.state === 'done') return 'finished';
  return 'idle';
}

/** When the reason will change by the clock alone (detecting → no_signal), so a caller can wake then. */
export function nextReasonChangeMs(entry: Pick<Entry, 'reason'>, agent: Agent | null): number | null {
  return entry.reason === 'detecting' && agent ? agent.identifiedAtMs + DETECTION_WINDOW_MS : null;
}
