import Type, { type Static } from 'typebox';
import { nullable, SurfaceId, TimeMs, Uuid } from './wire';

/**
 * The supervisor (an addition to REFERENCE.md; ARCHITECTURE.md "The supervisor"): what serve does
 * so that many agents need their person less — queued prompts, answer rules, stall and
 * usage-limit observations. Each is off unless asked for, each is shown where it acted, and each
 * is an observation *beside* the declared state, never a replacement for it.
 */

/** Queue ids are `q` and a number, counted per instance and never reused. */
export const QueueId = Type.String({ pattern: '^q[1-9][0-9]{0,15}$' });

/** A prompt waiting to be submitted when its agent's declared turn next ends. */
export const QueuedPrompt = Type.Object({
  id: QueueId,
  surface_id: SurfaceId,
  session: Uuid,
  text: Type.String(),
  queued_at_ms: TimeMs,
  /** 1 is delivered next. */
  position: Type.Integer({ minimum: 1 }),
});
export type QueuedPrompt = Static<typeof QueuedPrompt>;

/**
 * Why a pane's queue is held (nothing is sent until it is released): its agent declared an error,
 * or the last delivery did not start a turn. A person releases it with `queue.send_now`, or it is
 * released by the agent's next turn.
 */
export const QueueHold = Type.Object({
  reason: Type.Union([Type.Literal('errored'), Type.Literal('not_started'), Type.Literal('refused')]),
  message: Type.String(),
  since_ms: TimeMs,
});
export type QueueHold = Static<typeof QueueHold>;

/** One pane's queue, as `queue.list` returns it. */
export const PaneQueue = Type.Object({ surface_id: SurfaceId, session: Uuid, held: nullable(QueueHold), items: Type.Array(QueuedPrompt) });
export type PaneQueue = Static<typeof PaneQueue>;

/**
 * The stall observation: the agent declares working, yet for the threshold its PTY printed
 * nothing, its process tree used no CPU, and no hook or record came. The facts it rests on are
 * the last time each was seen (null: never, or unknown, such as CPU from an older host).
 */
export const Stall = Type.Object({
  since_ms: TimeMs,
  threshold_ms: TimeMs,
  last_output_ms: nullable(TimeMs),
  last_cpu_ms: nullable(TimeMs),
  last_hook_ms: nullable(TimeMs),
  last_record_ms: nullable(TimeMs),
  /** When the runtime's nudge was sent (`supervisor.nudge_stalled`), once per stall. */
  nudged_at_ms: nullable(TimeMs),
});
export type Stall = Static<typeof Stall>;

/** What became of the continue prompt after a usage limit's reset (`supervisor.continue_at_reset`). */
export const LimitContinue = Type.Union([
  Type.Literal('off'),
  Type.Literal('waiting'),
  Type.Literal('sent'),
  Type.Literal('started'),
  Type.Literal('not_started'),
  Type.Literal('unknown_reset'),
]);
export type LimitContinue = Static<typeof LimitContinue>;

/** The agent printed one of its runtime's usage-limit markers (runtime.toml `[limits]`). */
export const UsageLimit = Type.Object({
  seen_at_ms: TimeMs,
  /** The line of the screen the marker was found in, as printed (cut to 200 characters). */
  line: Type.String(),
  /** When the limit resets, read from that line; null when the line does not say. */
  resets_at_ms: nullable(TimeMs),
  continue: LimitContinue,
});
export type UsageLimit = Static<typeof UsageLimit>;

/** An answer a rule gave in the person's place. */
export const AutoAnswer = Type.Object({
  rule: Type.String(),
  answer: Type.String(),
  /** The declared message it answered. */
  message: Type.String(),
  state_seq: Type.Integer({ minimum: 0 }),
  at_ms: TimeMs,
  surface_id: SurfaceId,
  session: Uuid,
});
export type AutoAnswer = Static<typeof AutoAnswer>;

/** The supervisor's part of a status object: null where nothing is observed or done. */
export const Supervision = Type.Object({
  queued: Type.Integer({ minimum: 0 }),
  queue_held: nullable(QueueHold),
  stalled: nullable(Stall),
  limit: nullable(UsageLimit),
  /** The latest automatic answer in this pane, shown for an hour. */
  auto_answer: nullable(AutoAnswer),
});
export type Supervision = Static<typeof Supervision>;

/** The most answers a rule may give in an hour (`per_hour`), and so the most answer times kept per rule. */
export const RULE_PER_HOUR_MAX = 10000;

/** A rule name: what a notification and `rules test` say answered. */
export const RuleName = Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$' });

/**
 * One entry of config.json's `answer_rules`: a waiting agent whose declared permission prompt
 * matches `pattern` (a JavaScript regular expression over the declared message) is answered
 * `answer` (a name of its runtime's `[answers.permission]` choices), at most `per_hour` times in
 * any hour. Only `permission`: a question is never answered by a rule.
 */
export const AnswerRule = Type.Object(
  {
    name: RuleName,
    /** A runtime slug (`claude-code`); absent: any agent. */
    runtime: Type.Optional(Type.String({ pattern: '^[a-z0-9-]+$' })),
    kind: Type.Literal('permission'),
    pattern: Type.String({ minLength: 1, maxLength: 1024 }),
    answer: Type.String({ minLength: 1, maxLength: 64 }),
    per_hour: Type.Optional(Type.Integer({ minimum: 1, maximum: RULE_PER_HOUR_MAX })),
  },
  { additionalProperties: false },
);
export type AnswerRule = Static<typeof AnswerRule>;

/** A rule as `rules.list` shows it: how often it answered in the last hour. */
export const RuleStatus = Type.Object({
  name: RuleName,
  runtime: nullable(Type.String()),
  kind: Type.Literal('permission'),
  pattern: Type.String(),
  answer: Type.String(),
  per_hour: nullable(Type.Integer({ minimum: 1 })),
  used_last_hour: Type.Integer({ minimum: 0 }),
});
export type RuleStatus = Static<typeof RuleStatus>;

/** Defaults of the `supervisor` settings (config.json). */
export const SUPERVISOR_DEFAULTS = {
  /** How long a matching prompt waits for its person before a rule answers it. */
  answer_delay_ms: 5000,
  /** Stall threshold, seconds (`agent_stall_threshold_secs`): ten minutes. */
  stall_threshold_secs: 600,
  /** After a usage limit's reset, this long before the continue prompt goes. */
  continue_margin_secs: 60,
} as const;

/** An automatic answer is shown in its pane's status and the inbox's history this long. */
export const AUTO_ANSWER_SHOWN_MS = 60 * 60 * 1000;
/** `fleet.inbox` lists at most this many automatic answers of the last hour (newest first). */
export const AUTO_ANSWERS_LISTED = 50;
/** At most this many prompts wait in one pane's queue. */
export const QUEUE_MAX_PER_PANE = 100;
