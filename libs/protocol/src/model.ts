import Type, { type Static } from 'typebox';
import { LayoutTree, type LayoutNode } from './layout';
import { MachineField } from './machines';
import { Env, nullable, SurfaceId, Uuid } from './wire';

/** The workspace model as serve shows it (REFERENCE.md §2.3): workspaces, panes, worktrees. */

const closed = { additionalProperties: false } as const;

/** A pane's git worktree that Paneflow made or reuses (§5.4), removed on close with `auto`. */
export const ManagedWorktree = Type.Object(
  {
    path: Type.String(),
    repo_root: Type.String(),
    branch: Type.String(),
    teardown: Type.Union([Type.Literal('auto'), Type.Literal('keep')]),
    action: Type.Union([Type.Literal('create'), Type.Literal('reuse')]),
  },
  closed,
);
export type ManagedWorktree = Static<typeof ManagedWorktree>;

/** A pane of a resolved workspace spec (§5.1): paths absolute, env expanded. */
export const ResolvedPane = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1 })),
    cwd: Type.String({ minLength: 1 }),
    command: Type.Optional(Type.String({ minLength: 1 })),
    agent: Type.Optional(Type.String({ minLength: 1 })),
    prompt: Type.Optional(Type.String()),
    focus: Type.Boolean(),
    env: Env,
    managed_worktree: Type.Optional(ManagedWorktree),
  },
  closed,
);
export type ResolvedPane = Static<typeof ResolvedPane>;

/** One pane of `surface.list`. */
export const SurfaceEntry = Type.Object({
  surface_id: SurfaceId,
  /** Its machine (issue 32): absent or null for this one. */
  ...MachineField,
  name: nullable(Type.String()),
  title: Type.String(),
  cwd: Type.String(),
  cmd: Type.String(),
  workspace: Type.Integer({ minimum: 0 }),
  workspace_id: Uuid,
  session: Uuid,
});
export type SurfaceEntry = Static<typeof SurfaceEntry>;

/** One workspace of `workspace.list`: its panes in order, the split tree faces draw, the pane in front. */
export const WorkspaceEntry = Type.Object({
  index: Type.Integer({ minimum: 0 }),
  id: Uuid,
  name: Type.String(),
  active: Type.Boolean(),
  surfaces: Type.Array(SurfaceId),
  layout: nullable(LayoutTree),
  focus: nullable(SurfaceId),
});
export type WorkspaceEntry = Omit<Static<typeof WorkspaceEntry>, 'layout'> & { layout: LayoutNode | null };

export const WorkspaceRef = Type.Object({ index: Type.Integer({ minimum: 0 }), id: Uuid, name: Type.String() });
