// How long a client waits for serve's answer: what serve itself may take, so that the answer which
// says why (`host_timeout`, a resume still `pending`) reaches the user instead of a bare timeout.
// The CLI waits this long for its serve; a serve this long for another machine's (issue 32).
import {
  ANSWER_SETTLE_MAX_MS,
  HOST_REQUEST_TIMEOUT_MS,
  READY_DEADLINE_MS,
  RESTORE_CONCURRENCY,
  RESUME_WAIT_MS,
  SESSION_STOP_WAIT_MS,
  SUBMIT_CONFIRM_MS,
  SUBMIT_PASTE_DELAY_MAX_MS,
} from './limits';
import type { SessionRow } from './status';

/** Past serve's own deadline: its answer's way back, on a loaded machine. */
const ANSWER_MARGIN_MS = 5000;

const HOST = HOST_REQUEST_TIMEOUT_MS;
/** The host's session.restart (after a wait for a host being started again), then the wait for the resume's verdict. */
const RESTART = 2 * HOST + RESUME_WAIT_MS;
/** Both writes of a submitted paste (text, then its Enter after the paste delay). */
const TYPE = 2 * HOST + SUBMIT_PASTE_DELAY_MAX_MS;

/**
 * The longest serve may take to answer each method, beyond one request to the host (every other
 * method): its requests to the host one after another, each up to HOST_REQUEST_TIMEOUT_MS, and its
 * own waits. `count` is the panes a method works through one after another.
 */
const SERVE_TAKES: Record<string, (count: number) => number> = {
  // session.create, then session.inspect
  'workspace.create': () => 2 * HOST,
  'surface.split': () => 2 * HOST,
  'workspace.up': (panes) => Math.max(1, panes) * 2 * HOST,
  // host.status, then each session stopped and removed (at once)
  'surface.close': () => 2 * HOST + SESSION_STOP_WAIT_MS,
  'workspace.close': () => 2 * HOST + SESSION_STOP_WAIT_MS,
  // typed, then a wait for the agent's classification and for its turn to start
  'surface.send_text': () => TYPE + 2 * SUBMIT_CONFIRM_MS,
  'queue.send_now': () => TYPE + 2 * SUBMIT_CONFIRM_MS,
  'surface.answer': () => ANSWER_SETTLE_MAX_MS + TYPE + SUBMIT_CONFIRM_MS,
  'surface.wait_ready': () => READY_DEADLINE_MS,
  'surface.restart': () => RESTART,
  'session.restore': (panes) => Math.max(1, Math.ceil(panes / RESTORE_CONCURRENCY)) * RESTART,
};

/** How long to wait for serve's answer to `method`; `count` is the panes it works through (a restore's candidates, an `up`'s panes). */
export function answerDeadlineMs(method: string, count = 1): number {
  return (SERVE_TAKES[method]?.(count) ?? HOST) + ANSWER_MARGIN_MS;
}

/** The same, for a request this serve carries to another machine's: that serve's deadline, and the link's way there and back. */
export function routedDeadlineMs(method: string, count = 1): number {
  return answerDeadlineMs(method, count) + ANSWER_MARGIN_MS;
}

/** A request's as `request` (the CLI's instance.ts) and the bridge (`rpc --stdio`) carry it: a `workspace.up` counts its panes, a far pane's the link. */
export function requestDeadlineMs(method: string, params: unknown): number {
  const given = params as { panes?: unknown; machine?: unknown } | null | undefined;
  const count = Array.isArray(given?.panes) ? given.panes.length : undefined;
  return (typeof given?.machine === 'string' ? routedDeadlineMs : answerDeadlineMs)(method, count);
}

/** A restore's: every ended session (of the workspace) may be one of its candidates. */
export function restoreDeadlineMs(sessions: SessionRow[], workspaceId: string | undefined): number {
  const ended = sessions.filter((s) => (s.lifecycle === 'exited' || s.lifecycle === 'failed' || s.lifecycle === 'lost') && (!workspaceId || s.workspace_id === workspaceId));
  return answerDeadlineMs('session.restore', ended.length);
}
