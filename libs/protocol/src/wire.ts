import { KINDS, STATES, type Kind, type State, type StatusRecord } from '@paneflow/osc7501';
import Type, { type Static, type TSchema } from 'typebox';

/** Shapes shared by the host and the public protocol. */

export const Scope = Type.Union([Type.Literal('workspace'), Type.Literal('all')]);
/** Where a caller's names resolve: its own workspace (the default), or every one. */
export type Scope = Static<typeof Scope>;

export const Uuid = Type.String({ pattern: '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' });
export const SurfaceId = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });
export const TimeMs = Type.Integer({ minimum: 0 });
export const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** OSC 7501's states and kinds, as the protocol library lists them. */
export const DeclaredState = Type.Unsafe<State>(Type.Union(STATES.map((state) => Type.Literal(state))));
export const BlockedKind = Type.Unsafe<Kind>(Type.Union(KINDS.map((kind) => Type.Literal(kind))));
export type DeclaredState = State;
export type BlockedKind = Kind;

/** One OSC 7501 record in its canonical JSON shape (OSC7501.md §12). */
export const WireRecord = Type.Object(
  {
    id: nullable(Type.String()),
    state: DeclaredState,
    kind: nullable(BlockedKind),
    progress: nullable(Type.Integer({ minimum: 0, maximum: 100 })),
    app: nullable(Type.String()),
    effective_app: nullable(Type.String()),
    title: nullable(Type.String()),
    msg: nullable(Type.String()),
  },
  { additionalProperties: false },
);
export type WireRecord = Static<typeof WireRecord>;

/** The current record as the status model consumes it (REFERENCE.md §3.1): `msg` is `message`. */
export const DeclaredStatus = Type.Object(
  {
    state: DeclaredState,
    kind: nullable(BlockedKind),
    progress: nullable(Type.Integer({ minimum: 0, maximum: 100 })),
    id: nullable(Type.String()),
    app: nullable(Type.String()),
    title: nullable(Type.String()),
    message: nullable(Type.String()),
  },
  { additionalProperties: false },
);
export type DeclaredStatus = Static<typeof DeclaredStatus>;

/** A stored record (`Store` of @paneflow/osc7501) as the host sends it. */
export const wireRecord = (r: StatusRecord): WireRecord => ({
  id: r.id,
  state: r.state,
  kind: r.kind,
  progress: r.progress,
  app: r.app,
  effective_app: r.effectiveApp,
  title: r.title,
  msg: r.msg,
});

/** The store's current record (`Store.current()`) as the status model reads it: null when there is none. */
export function declaredStatusOf(current: StatusRecord | null): DeclaredStatus | null {
  if (!current) return null;
  return { state: current.state, kind: current.kind, progress: current.progress, id: current.id, app: current.effectiveApp, title: current.title, message: current.msg };
}

export const Lifecycle = Type.Union([
  Type.Literal('starting'),
  Type.Literal('live'),
  Type.Literal('exited'),
  Type.Literal('failed'),
  Type.Literal('lost'),
]);
export type Lifecycle = Static<typeof Lifecycle>;

export const Env = Type.Record(Type.String(), Type.String());

/** Which agent runs in a pane's foreground (REFERENCE.md §6.3.7), from the host's process scan. */
export const Observation = Type.Object({
  /** The runtime slug. */
  id: Type.String(),
  pid: Type.Integer(),
  /** Kernel start time: with the pid, the process's identity. */
  pid_started_at: Type.Integer(),
  /** The same start time as epoch milliseconds. */
  pid_started_at_ms: TimeMs,
  process_group: Type.Integer(),
  process_name: Type.String(),
  /** Direct matches only: at most 8 items and 1024 bytes. */
  argv: Type.Optional(Type.Array(Type.String())),
});
export type Observation = Static<typeof Observation>;

/** Read and search results, the same for a host session and a public surface. */
export const ReadResult = Type.Object({
  text: Type.String(),
  lines: Type.Integer({ minimum: 0 }),
  total_lines: Type.Integer({ minimum: 0 }),
  /** The read reached the oldest kept line (REFERENCE.md §2.3): there is nothing older to page back to. */
  eof: Type.Boolean(),
  output_generation: Type.Integer({ minimum: 0 }),
  /**
   * Rows of scrollback the session dropped, oldest first, past its limits (`scrollback` rows, 8 MiB
   * of compressed rows) since it started: lines before `total_lines` that are gone.
   */
  dropped_rows: Type.Integer({ minimum: 0 }),
});
export const SearchResult = Type.Object({
  matches: Type.Array(Type.Object({ line: Type.Integer({ minimum: 1 }), text: Type.String() })),
  truncated: Type.Boolean(),
});
