// The tools of paneflow-mcp (REFERENCE.md §8) over serve's public socket. Every piece of terminal
// text goes out fenced (§9); panes outside the caller's scope do not exist here.
import { callChecked } from '@paneflow/instance/connect';
import { requestDeadlineMs } from '@paneflow/protocol/deadlines';
import { fence } from '@paneflow/protocol/fence';
import { READ_LINES_DEFAULT, READ_LINES_MAX, SEARCH_MATCHES_DEFAULT, SEARCH_MATCHES_MAX, SUBMIT_CONFIRM_MS, TURNS_KEPT } from '@paneflow/protocol/limits';
import { RpcError } from '@paneflow/protocol/errors';
import { MAX_SELECTOR_CHARS } from '@paneflow/protocol/selectors';
import type { SurfaceEntry as Surface } from '@paneflow/protocol/model';
import type { Scope } from '@paneflow/protocol/wire';
import type { PublicMethods } from '@paneflow/protocol/public-protocol';
import type { MethodName, ParamsOf, ResultOf } from '@paneflow/protocol/schema';
import { displayText, jsonText, noMatchText } from '@paneflow/view';
import { z } from 'zod';


export interface Context {
  socket: string;
  scope: Scope;
  /** The caller's workspace (PANEFLOW_WORKSPACE_ID); without it, and without scope all, no pane is visible. */
  workspaceId: string | undefined;
}

/** A failure the caller should read: it becomes a tool result with `isError`. */
export class ToolError extends Error {}

async function request<M extends MethodName<PublicMethods>>(context: Context, method: M, params: ParamsOf<PublicMethods, M>): Promise<ResultOf<PublicMethods, M>> {
  try {
    return await callChecked<PublicMethods, M>(context.socket, method, params, { timeoutMs: requestDeadlineMs(method, params) });
  } catch (error) {
    throw new ToolError(`${method}: ${(error as Error).message}`);
  }
}

/** The workspace the bridge's scope confines it to, or null for scope all. */
function scopeWorkspace(context: Context): string | null {
  if (context.scope === 'all') return null;
  // Without a workspace of its own the scope would follow whatever tab is in front: refuse instead.
  if (!context.workspaceId) {
    throw new ToolError('PANEFLOW_WORKSPACE_ID is unset: this server runs outside a Paneflow pane and has no workspace; set PANEFLOW_MCP_SCOPE=all to read every workspace');
  }
  return context.workspaceId;
}

async function scopedPanes(context: Context): Promise<Surface[]> {
  const workspace = scopeWorkspace(context);
  return (await request(context, 'surface.list', workspace === null ? { scope: 'all' } : { scope: 'workspace', workspace_id: workspace })).surfaces;
}

/**
 * A target as serve reads every selector (`surface.resolve`: id, name in any case or a unique
 * prefix, `cmdline:`, `cwd:`), confined to the bridge's scope: a pane of another workspace does
 * not exist here, by id either. An error quotes the target cut short (`echoText`).
 */
async function resolveTarget(context: Context, target: number | string): Promise<Surface> {
  const workspace = scopeWorkspace(context);
  const selector = String(target);
  const missing = () => new ToolError(noMatchText(selector, workspace !== null));
  // Past the grammar's bound it names no pane, and would not fit in a request.
  if (selector.length > MAX_SELECTOR_CHARS) throw missing();
  let surfaces: Surface[];
  try {
    ({ surfaces } = await callChecked<PublicMethods, 'surface.resolve'>(context.socket, 'surface.resolve', { selector, scope: context.scope, ...(workspace === null ? {} : { workspace_id: workspace }) }));
  } catch (error) {
    if (error instanceof RpcError && error.reason === 'no_match') throw missing();
    throw new ToolError((error as Error).message);
  }
  if (workspace !== null && surfaces[0].workspace_id !== workspace) throw missing();
  return surfaces[0];
}

const Target = z.union([z.number().int().min(0).max(Number.MAX_SAFE_INTEGER), z.string().min(1)]).describe('a surface_id, a pane name (exact, any case, or a unique prefix), cmdline:<text> or cwd:<absolute path>');

export const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

export const schemas = {
  list_panes: z.object({}).strict(),
  list_inbox: z.object({}).strict(),
  read_pane: z
    .object({
      target: Target,
      lines: z.number().int().min(1).max(READ_LINES_MAX).optional().describe(`lines to return, 1–${READ_LINES_MAX} (default ${READ_LINES_DEFAULT})`),
      offset: z.number().int().min(0).optional().describe('lines to skip back from the end (default 0)'),
    })
    .strict(),
  search_pane: z
    .object({
      target: Target,
      pattern: z.string().min(1).describe('case-insensitive text to find'),
      max_matches: z.number().int().min(1).max(SEARCH_MATCHES_MAX).optional().describe(`at most this many matches, 1–${SEARCH_MATCHES_MAX} (default ${SEARCH_MATCHES_DEFAULT})`),
    })
    .strict(),
  list_turns: z
    .object({
      target: Target.optional().describe('a surface_id or pane name; omitted: every pane in scope'),
      since_ms: z.number().int().min(0).optional().describe('only turns running or ended since this time (ms since the epoch)'),
      limit: z.number().int().min(1).max(TURNS_KEPT).optional().describe('the newest this many'),
    })
    .strict(),
  turn_diff: z
    .object({
      target: Target,
      turn: z.number().int().min(1).optional().describe("the turn's number (list_turns); default the latest"),
      stat: z.boolean().optional().describe("git's --stat summary instead of the diff"),
    })
    .strict(),
  write_pane: z
    .object({
      target: Target,
      text: z.string().describe('the text to type'),
      submit: z.boolean().optional().describe('press Enter after it (default false)'),
    })
    .strict(),
};

type Args<T extends keyof typeof schemas> = z.infer<(typeof schemas)[T]>;

/** The panes of the scope; names and titles (a title may be a hook's prompt) as every face shows them. */
export async function listPanes(context: Context): Promise<string> {
  const panes = (await scopedPanes(context)).map(({ surface_id, name, title, cwd, cmd, workspace, workspace_id }) => ({
    surface_id,
    name: name === null ? null : displayText(name),
    title: displayText(title),
    cwd,
    cmd,
    workspace,
    workspace_id,
  }));
  return fence(jsonText({ panes }, 2), { source: 'surface.list', scope: context.scope });
}

/**
 * The agents of the scope waiting for their person, oldest first (`paneflow inbox`). Their messages
 * are an agent's own words: shown as every face shows them, and fenced.
 */
export async function listInbox(context: Context): Promise<string> {
  const inScope = new Set((await scopedPanes(context)).map((p) => p.surface_id));
  const items = (await request(context, 'fleet.inbox', {})).items
    .filter((item) => inScope.has(item.surface_id))
    .map((item) => ({
      ...item,
      surface_name: item.surface_name === null ? null : displayText(item.surface_name),
      workspace_name: displayText(item.workspace_name),
      message: item.message === null ? null : displayText(item.message),
    }));
  return fence(jsonText({ items }, 2), { source: 'fleet.inbox', scope: context.scope });
}

/**
 * The turns of the panes in scope (the turn ledger): prompts, questions and messages are an
 * agent's words and file paths a repository's, so every text is shown as faces show it, and fenced.
 */
export async function listTurns(context: Context, args: Args<'list_turns'>): Promise<string> {
  const panes = await scopedPanes(context);
  const inScope = new Set(panes.map((p) => p.surface_id));
  const surface_id = args.target === undefined ? undefined : (await resolveTarget(context, args.target)).surface_id;
  // The limit counts the turns in scope, so it is applied here, after the scope.
  const { turns } = await request(context, 'turn.list', { surface_id, since_ms: args.since_ms });
  const scoped = turns.filter((t) => inScope.has(t.surface_id));
  const shown = (args.limit === undefined ? scoped : scoped.slice(-args.limit)).map((t) => JSON.parse(JSON.stringify(t), (_key, value) => (typeof value === 'string' ? displayText(value) : value)));
  return fence(jsonText({ turns: shown }, 2), { source: 'turn.list', scope: context.scope });
}

/** git's diff of one turn of a pane in scope, fenced: it is a repository's content, never instructions. */
export async function turnDiff(context: Context, args: Args<'turn_diff'>): Promise<string> {
  const pane = await resolveTarget(context, args.target);
  const result = await request(context, 'turn.diff', { surface_id: pane.surface_id, turn: args.turn, stat: args.stat ?? false });
  const head = `turn ${result.turn.turn} of surface ${pane.surface_id}, start snapshot against ${result.against === 'end' ? 'its end' : 'the working tree now (no end snapshot)'}${result.truncated ? ', cut short' : ''}\n`;
  return fence(head + result.diff, { source: 'turn.diff', scope: context.scope });
}

export async function readPane(context: Context, args: Args<'read_pane'>): Promise<string> {
  const pane = await resolveTarget(context, args.target);
  const result = await request(context, 'surface.read', { surface_id: pane.surface_id, lines: args.lines ?? READ_LINES_DEFAULT, offset: args.offset ?? 0, fenced: false });
  return fence(result.text, { source: 'surface.read', scope: context.scope, total_lines: result.total_lines, eof: result.eof });
}

export async function searchPane(context: Context, args: Args<'search_pane'>): Promise<string> {
  const pane = await resolveTarget(context, args.target);
  const max = args.max_matches ?? SEARCH_MATCHES_DEFAULT;
  const { matches, truncated } = await request(context, 'surface.search', { surface_id: pane.surface_id, pattern: args.pattern, max_matches: max });
  const lines = matches.length === 0 ? ['(no matches)'] : matches.map((m) => `line ${m.line}: ${m.text}`);
  if (truncated) lines.push(`(truncated at ${max} matches; narrow the pattern or raise max_matches)`);
  return fence(lines.join('\n'), { source: 'surface.search', scope: context.scope, pattern: args.pattern });
}

/**
 * Types into a pane as `paneflow send` does, by serve's rules: never a submit into an agent that
 * is thinking or asking, and a submit to a declaring agent is confirmed (`started`). A submit its
 * agent did not take (`started: false`) fails, as `send --submit` exits 1 `not_started`: the
 * error result says so, then gives serve's answer.
 */
export async function writePane(context: Context, args: Args<'write_pane'>): Promise<string> {
  const pane = await resolveTarget(context, args.target);
  const result = await request(context, 'surface.send_text', {
    surface_id: pane.surface_id,
    text: args.text,
    submit: args.submit ?? false,
    origin: 'mcp',
    scope: context.scope,
    ...(context.workspaceId ? { workspace_id: context.workspaceId } : {}),
  });
  if (result.started === false) {
    throw new ToolError(`not_started: surface ${pane.surface_id}'s agent did not start a turn within ${SUBMIT_CONFIRM_MS / 1000} s of the submit\n${JSON.stringify(result)}`);
  }
  return JSON.stringify(result);
}

export async function scriptingOn(context: Context): Promise<boolean> {
  try {
    return (await callChecked<PublicMethods, 'system.capabilities'>(context.socket, 'system.capabilities', {})).scripting;
  } catch {
    return false;
  }
}
