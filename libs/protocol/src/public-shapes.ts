import Type from 'typebox';
import { RoutedTarget } from './machines';
import { nullable, SurfaceId } from './wire';

// Shapes more than one family of the public methods takes (public-protocol.ts, supervisor-methods.ts).

/** Params take no field they do not name. */
export const closed = { additionalProperties: false } as const;
export const Empty = Type.Object({}, closed);
/** A pane; with `machine`, a pane of that machine, asked of its serve (issue 32). */
export const SurfaceTarget = { surface_id: SurfaceId, ...RoutedTarget };

/**
 * §4.4. A submit to a declaring agent is confirmed by serve: `started` says whether its state moved
 * into a turn within 3 s (null when the agent declares nothing), `start_reason` why.
 */
export const SendTextResult = Type.Object({
  surface_id: SurfaceId,
  sent: Type.Boolean(),
  submitted: Type.Boolean(),
  agent_target: Type.Boolean(),
  paste: Type.Boolean(),
  submit_mode: nullable(Type.Union([Type.Literal('deferred_paste_cr'), Type.Literal('inline_cr')])),
  terminal_bracketed_paste: Type.Boolean(),
  state_seq: Type.Optional(Type.Integer()),
  started: Type.Optional(nullable(Type.Boolean())),
  start_reason: Type.Optional(Type.Union([Type.Literal('state_changed'), Type.Literal('not_started'), Type.Literal('no_signal')])),
});
