import Type, { type Static } from 'typebox';
import { nullable, TimeMs } from './wire';

/**
 * What it takes to bring an agent's conversation back (REFERENCE.md §1.2, §6.1): kept in the
 * session's manifest and updated whenever the agent's own session id changes (`/clear` and a
 * fork give it a new one). The launch argv and env are the manifest's `launch`; the worktree is
 * the pane's, in serve's model.
 */
export const ResumeRecord = Type.Object({
  /** The runtime slug of the agent the pane ran. */
  runtime_id: Type.String(),
  provider_session_id: nullable(Type.String()),
  /** Who said so last: the agent's hooks or the runtime's session reader (`[sessions]`). */
  source: nullable(Type.Union([Type.Literal('hook'), Type.Literal('reader')])),
  transcript_path: nullable(Type.String()),
  /** The agent's working directory when it was last seen. */
  cwd: nullable(Type.String()),
  updated_at_ms: TimeMs,
});
export type ResumeRecord = Static<typeof ResumeRecord>;

/**
 * How a restart ran: the agent's conversation by id (`session`, the runtime's `session_argv`),
 * its latest in the directory (`continue`), or the recorded launch (`launch`).
 */
export const RestartMode = Type.Union([Type.Literal('session'), Type.Literal('continue'), Type.Literal('launch')]);
export type RestartMode = Static<typeof RestartMode>;

/**
 * A resume's outcome: `pending` until the agent shows it is back (it reports through OSC 7501, or
 * its id is seen again), `failed` when its output holds one of the runtime's `failure_markers` or
 * it exits first; `launched` for a plain relaunch, which has nothing to confirm.
 */
export const ResumeOutcome = Type.Union([Type.Literal('pending'), Type.Literal('resumed'), Type.Literal('failed'), Type.Literal('launched')]);
export type ResumeOutcome = Static<typeof ResumeOutcome>;

/** The restart that began this generation. */
export const RestartAttempt = Type.Object({
  mode: RestartMode,
  provider_session_id: nullable(Type.String()),
  argv: Type.Array(Type.String()),
  outcome: ResumeOutcome,
  /** Why it failed (the marker seen, or the exit), or why it fell back to a plainer mode. */
  reason: nullable(Type.String()),
  at_ms: TimeMs,
});
export type RestartAttempt = Static<typeof RestartAttempt>;

/**
 * Why a session is `lost`: its host died while the machine kept running (`host_crash`), or the
 * machine restarted (`reboot`: another boot id, or the runtime dir emptied, as a reboot does).
 */
export const LossReason = Type.Union([Type.Literal('host_crash'), Type.Literal('reboot')]);
export type LossReason = Static<typeof LossReason>;
export const Loss = Type.Object({ reason: LossReason, at_ms: TimeMs });
export type Loss = Static<typeof Loss>;
