/**
 * The turn ledger's rule (an addition to REFERENCE.md §3): a turn of a declaring agent begins when
 * its reduced status enters the turn (`statusInTurn`: busy or attention) and ends when it leaves;
 * waits for the person (attention) inside it are questions, timed apart from the work; declared
 * messages are kept in order. Pure: the caller says what happened and when, and keeps the record.
 */

import {
  TURN_MESSAGES_KEPT,
  TURN_QUESTIONS_KEPT,
  TURN_TEXT_BYTES,
  type Answerer,
  type DeclaredStatus,
  type Lifecycle,
  type PromptSource,
  type ReducedStatus,
  type TurnEnding,
  type TurnRecord,
} from '@paneflow/protocol';
import { cutUtf8 } from './text';

/** What a turn's record says of its pane when it begins. */
export type TurnOrigin = Pick<TurnRecord, 'turn' | 'session' | 'generation' | 'surface_id' | 'workspace_id' | 'pane_name' | 'runtime_id' | 'provider_session_id'>;

/** A turn that has not ended: its record, and the phase it is in since when. */
export interface OpenTurn {
  record: TurnRecord;
  phase: 'working' | 'waiting';
  phaseSinceMs: number;
}

/** One reduction of the pane, as the ledger sees it. */
export interface TurnStep {
  status: ReducedStatus;
  record: DeclaredStatus | null;
  nowMs: number;
}

/** Who ended a wait, and with what (null: nothing seen answered it). */
export type Answer = { by: Answerer; text: string | null } | null;

/** Text kept in a record: at most TURN_TEXT_BYTES of UTF-8, cut on a character and marked. */
export function clipText(text: string): string {
  const cut = cutUtf8(text, TURN_TEXT_BYTES - 3);
  return cut.length < text.length ? `${cut}…` : text;
}

export function startTurn(origin: TurnOrigin, step: TurnStep, prompt: { text: string; source: PromptSource } | null): OpenTurn {
  const open: OpenTurn = {
    record: {
      ...origin,
      started_at_ms: step.nowMs,
      ended_at_ms: null,
      ended: null,
      working_ms: 0,
      waiting_ms: 0,
      prompt: prompt ? { text: clipText(prompt.text), source: prompt.source } : null,
      questions: [],
      messages: [],
      change: null,
      tokens: null,
      updated_at_ms: step.nowMs,
    },
    // Working until this first step says otherwise: a turn that begins waiting asks its question now.
    phase: 'working',
    phaseSinceMs: step.nowMs,
  };
  return advanceTurn(open, step, null);
}

/** Elapsed time goes to the phase it was spent in. */
function account(open: OpenTurn, nowMs: number): TurnRecord {
  const spent = Math.max(0, nowMs - open.phaseSinceMs);
  const record = { ...open.record, updated_at_ms: nowMs };
  if (open.phase === 'waiting') record.waiting_ms += spent;
  else record.working_ms += spent;
  return record;
}

/** A question's wait ends: when, and how (`answer`: who ended it, if anyone Paneflow saw). */
function closeQuestion(record: TurnRecord, nowMs: number, answer: Answer): TurnRecord {
  const last = record.questions.at(-1);
  if (!last || last.answered_at_ms !== null) return record;
  const closed = { ...last, answered_at_ms: nowMs, by: answer?.by ?? null, answer: answer?.text == null ? null : clipText(answer.text) };
  return { ...record, questions: [...record.questions.slice(0, -1), closed] };
}

/**
 * The turn goes on: a wait begins (a question, from the declared kind and message) or ends (with
 * `answer`), and a declared message that changed is kept. A blocked state's message is its
 * question, not a message.
 */
export function advanceTurn(open: OpenTurn, step: TurnStep, answer: Answer): OpenTurn {
  const phase = step.status === 'attention' ? 'waiting' : 'working';
  let record = account(open, step.nowMs);
  if (phase === 'waiting' && open.phase === 'working' && record.questions.length < TURN_QUESTIONS_KEPT) {
    const message = step.record?.message ?? null;
    record.questions = [...record.questions, { kind: step.record?.kind ?? null, message: message === null ? null : clipText(message), asked_at_ms: step.nowMs, answered_at_ms: null, by: null, answer: null }];
  }
  if (phase === 'working' && open.phase === 'waiting') record = closeQuestion(record, step.nowMs, answer);
  const message = step.record?.state === 'blocked' ? null : (step.record?.message ?? null);
  if (message !== null && record.messages.length < TURN_MESSAGES_KEPT) {
    const text = clipText(message);
    if (record.messages.at(-1)?.text !== text) record.messages = [...record.messages, { at_ms: step.nowMs, text }];
  }
  return { record, phase, phaseSinceMs: step.nowMs };
}

/**
 * How a turn that left the turn ended: the process ended (`exited`), or the host that ran it died
 * (`interrupted`), else what it declared (`finished` on done, `error`, else `idle`).
 */
export function turnEnding(step: Pick<TurnStep, 'status' | 'record'>, lifecycle: Lifecycle): TurnEnding {
  if (lifecycle === 'lost') return 'interrupted';
  if (lifecycle === 'exited' || lifecycle === 'failed') return 'exited';
  if (step.status === 'errored') return 'error';
  return step.record?.state === 'done' ? 'finished' : 'idle';
}

/** The turn's last step: its record, ended, with the time of its last phase and its last message. */
export function endTurn(open: OpenTurn, step: TurnStep, ending: TurnEnding, answer: Answer): TurnRecord {
  const advanced = advanceTurn(open, { ...step, status: open.phase === 'waiting' ? 'busy' : step.status }, answer);
  return { ...advanced.record, ended: ending, ended_at_ms: step.nowMs };
}

/**
 * A turn whose end was never seen (serve or its host died meanwhile): `interrupted`, ended when it
 * was last heard of, an open question left unanswered.
 */
export function interruptTurn(record: TurnRecord): TurnRecord {
  if (record.ended !== null) return record;
  return { ...record, ended: 'interrupted', ended_at_ms: record.updated_at_ms };
}
