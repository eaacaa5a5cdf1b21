import Type, { type Static } from 'typebox';
import { MachineField } from './machines';
import { TURN_FILES_KEPT, TURN_MESSAGES_KEPT, TURN_QUESTIONS_KEPT } from './limits';
import { BlockedKind, nullable, SurfaceId, TimeMs, Uuid } from './wire';

/**
 * The turn ledger (an addition to REFERENCE.md): one record per turn of a declaring agent. A turn
 * begins when the reduced status enters the turn (`busy` or `attention`) and ends when it leaves
 * it; everything in a record comes from declarations, hooks, serve's own actions, git and the
 * agent's own files — never from the screen.
 */

/**
 * How a turn ended: `finished` (it declared done), `idle` (back to idle without done, e.g. a
 * declined tool), `error` (it declared error), `exited` (its process ended), `interrupted` (the
 * host or serve died, so its end was never seen).
 */
export const TurnEnding = Type.Union([Type.Literal('finished'), Type.Literal('idle'), Type.Literal('error'), Type.Literal('exited'), Type.Literal('interrupted')]);
export type TurnEnding = Static<typeof TurnEnding>;

/**
 * Who answered a question: serve's own verbs (`answer`, `key`, `send`), or a person at a face
 * (`desktop`, `web`, `attach`, the host's client that typed).
 */
export const Answerer = Type.Union([
  Type.Literal('answer'),
  Type.Literal('key'),
  Type.Literal('send'),
  Type.Literal('desktop'),
  Type.Literal('web'),
  Type.Literal('attach'),
  // An answer rule of config.json (the supervisor), in the person's place.
  Type.Literal('rule'),
]);
export type Answerer = Static<typeof Answerer>;

/** Where the prompt that began a turn came from: the agent's hook, the text of the submit that began it, or a queued prompt delivered. */
export const PromptSource = Type.Union([Type.Literal('hook'), Type.Literal('send'), Type.Literal('queue')]);
export type PromptSource = Static<typeof PromptSource>;

/** One wait for the person inside a turn: what was declared, and how it ended. */
export const TurnQuestion = Type.Object({
  kind: nullable(BlockedKind),
  message: nullable(Type.String()),
  asked_at_ms: TimeMs,
  answered_at_ms: nullable(TimeMs),
  /** null: the wait ended with nothing Paneflow saw answer it (the agent moved on by itself, or the turn ended). */
  by: nullable(Answerer),
  /** What was answered, clipped; null where it is not known or not kept (an `auth` prompt's typing is never kept). */
  answer: nullable(Type.String()),
});
export type TurnQuestion = Static<typeof TurnQuestion>;

/** A declared message (`msg`), in the order it came. */
export const TurnMessage = Type.Object({ at_ms: TimeMs, text: Type.String() });
export type TurnMessage = Static<typeof TurnMessage>;

/** One file of a turn's change, as git's diff of the two snapshots says. */
export const FileChange = Type.Object({
  path: Type.String(),
  /** The path before a rename. */
  from: nullable(Type.String()),
  status: Type.Union([Type.Literal('added'), Type.Literal('modified'), Type.Literal('deleted'), Type.Literal('renamed'), Type.Literal('type_changed')]),
  /** Lines added and removed; null for a binary file. */
  insertions: nullable(Type.Integer({ minimum: 0 })),
  deletions: nullable(Type.Integer({ minimum: 0 })),
  binary: Type.Boolean(),
});
export type FileChange = Static<typeof FileChange>;

/**
 * What a turn changed in the git work tree its pane was in: snapshots of the whole working tree
 * (tracked files and untracked files that are not ignored) at its start and end, each a commit
 * under the private ref, and git's summary of the difference. The diff itself is read when asked.
 */
/** An object id as git writes it (SHA-1 or SHA-256): what reaches git from a record must be one. */
const ObjectId = Type.String({ pattern: '^(?:[0-9a-f]{40}|[0-9a-f]{64})$' });

export const TurnChange = Type.Object({
  /** The work tree's top directory. */
  repo: Type.String({ pattern: '^/' }),
  /** `refs/paneflow/turns/<session>/<turn>`: the store checks it is this record's own. */
  ref: Type.String({ pattern: '^refs/paneflow/turns/[0-9a-f-]{36}/[1-9][0-9]*$' }),
  start_commit: nullable(ObjectId),
  end_commit: nullable(ObjectId),
  /** When git began to read the working tree for each snapshot: a start taken late (a slow repository, a serve restarted) shows here. */
  start_at_ms: nullable(TimeMs),
  end_at_ms: nullable(TimeMs),
  files_changed: Type.Integer({ minimum: 0 }),
  added: Type.Integer({ minimum: 0 }),
  removed: Type.Integer({ minimum: 0 }),
  insertions: Type.Integer({ minimum: 0 }),
  deletions: Type.Integer({ minimum: 0 }),
  binary: Type.Integer({ minimum: 0 }),
  /** The first TURN_FILES_KEPT files; `files_changed` counts them all. */
  files: Type.Array(FileChange, { maxItems: TURN_FILES_KEPT }),
  /**
   * Untracked files left out of a snapshot (the first TURN_FILES_KEPT): over
   * TURN_SNAPSHOT_FILE_BYTES each, or past a snapshot's bound of untracked files in all.
   */
  skipped: Type.Array(Type.Object({ path: Type.String(), bytes: Type.Integer({ minimum: 0 }) }), { maxItems: TURN_FILES_KEPT }),
  /** Why a snapshot could not be taken (git failed), or null. */
  error: nullable(Type.String()),
});
export type TurnChange = Static<typeof TurnChange>;

/** Tokens by how they are billed: `input` is the uncached part, `cache_creation` what was written to the cache. */
export const TokenCounts = Type.Object({
  input: Type.Integer({ minimum: 0 }),
  output: Type.Integer({ minimum: 0 }),
  cache_read: Type.Integer({ minimum: 0 }),
  cache_creation: Type.Integer({ minimum: 0 }),
});
export type TokenCounts = Static<typeof TokenCounts>;

/** A turn's tokens, as the runtime's own transcript says; a cost only where the price table knows every model. */
export const TurnTokens = Type.Object({
  ...TokenCounts.properties,
  model: nullable(Type.String()),
  cost_usd: nullable(Type.Number({ minimum: 0 })),
  /** The price table's sources for the cost. */
  price_sources: Type.Array(Type.String()),
});
export type TurnTokens = Static<typeof TurnTokens>;

export const TurnRecord = Type.Object({
  /** 1, 2, … per session, across its restarts. */
  turn: Type.Integer({ minimum: 1 }),
  session: Uuid,
  generation: Type.Integer({ minimum: 1 }),
  surface_id: SurfaceId,
  workspace_id: Type.String(),
  pane_name: nullable(Type.String()),
  runtime_id: nullable(Type.String()),
  /** The agent's own conversation id, where known. */
  provider_session_id: nullable(Type.String()),
  started_at_ms: TimeMs,
  ended_at_ms: nullable(TimeMs),
  /** null while the turn runs. */
  ended: nullable(TurnEnding),
  working_ms: TimeMs,
  waiting_ms: TimeMs,
  prompt: nullable(Type.Object({ text: Type.String(), source: PromptSource })),
  questions: Type.Array(TurnQuestion, { maxItems: TURN_QUESTIONS_KEPT }),
  messages: Type.Array(TurnMessage, { maxItems: TURN_MESSAGES_KEPT }),
  /** null outside a git work tree. */
  change: nullable(TurnChange),
  tokens: nullable(TurnTokens),
  updated_at_ms: TimeMs,
});
export type TurnRecord = Static<typeof TurnRecord>;

/** One agent's part of the digest: what it did since the person last looked. */
export const DigestAgent = Type.Object({
  surface_id: SurfaceId,
  /** Its machine (issue 32): null or absent for this one. */
  ...MachineField,
  session: Uuid,
  pane_name: nullable(Type.String()),
  runtime_id: nullable(Type.String()),
  turns: Type.Integer({ minimum: 0 }),
  finished: Type.Integer({ minimum: 0 }),
  errors: Type.Array(Type.String()),
  interrupted: Type.Integer({ minimum: 0 }),
  files_changed: Type.Integer({ minimum: 0 }),
  insertions: Type.Integer({ minimum: 0 }),
  deletions: Type.Integer({ minimum: 0 }),
  tokens: nullable(TurnTokens),
  /** What it waits for now, or null. */
  waiting: nullable(Type.Object({ kind: nullable(BlockedKind), message: nullable(Type.String()), since_ms: TimeMs })),
  /** The prompt of its latest turn in the window. */
  last_prompt: nullable(Type.String()),
});
export type DigestAgent = Static<typeof DigestAgent>;
