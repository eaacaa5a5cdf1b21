import Type, { type Static, type TSchema } from 'typebox';
import { DEFAULT_LAYOUT, LayoutNameSchema, nameFault, type LayoutName } from '@paneflow/protocol';
import { Compile } from 'typebox/compile';
import { locate, SpecError, type Problem } from './problems';
import { parseToml } from './toml';
import { references, substitute } from './variables';
import { worktreePath } from './worktree';

export type Layout = LayoutName;
export const MAX_PANES = 32;
export const PORT_STRIDE = 10;

const closed = { additionalProperties: false } as const;

/** The fields of a pane, in a workspace spec and in a flow's `pane = { … }` (REFERENCE.md §5.1). */
export const PaneFields = {
  cwd: Type.Optional(Type.String()),
  agent: Type.Optional(Type.String({ minLength: 1 })),
  command: Type.Optional(Type.String({ minLength: 1 })),
  prompt: Type.Optional(Type.String()),
  focus: Type.Optional(Type.Boolean()),
  env: Type.Optional(Type.Record(Type.String(), Type.String())),
  name: Type.Optional(Type.String({ minLength: 1 })),
  worktree: Type.Optional(Type.String()),
  from: Type.Optional(Type.String({ minLength: 1 })),
  copy_env: Type.Optional(Type.Boolean()),
  setup: Type.Optional(Type.String()),
  setup_timeout_secs: Type.Optional(Type.Integer({ minimum: 1 })),
  worktree_teardown: Type.Optional(Type.Union([Type.Literal('auto'), Type.Literal('keep')])),
};
export const PaneSpec = Type.Object(PaneFields, closed);
export type PaneSpec = Static<typeof PaneSpec>;

export const WorkspaceFields = {
  name: Type.Optional(Type.String({ minLength: 1 })),
  layout: Type.Optional(LayoutNameSchema),
  port_base: Type.Optional(Type.Integer({ minimum: 1024, maximum: 65526 })),
};
// `panes` is checked by hand, for a message that says what to add.
const WorkspaceSpec = Type.Object({ ...WorkspaceFields, panes: Type.Optional(Type.Array(Type.Unknown())) }, closed);

/** What the spec needs from the machine; the CLI gives the real one, tests a fake. */
export interface SpecHost {
  /** Where `up` runs: the cwd of panes that name none. */
  cwd: string;
  home: string;
  isDirectory(path: string): boolean;
  realpath(path: string): string;
  onPath(command: string): boolean;
  /** The root of the git repository holding `path`, or null. */
  gitRoot(path: string): string | null;
  /** `git worktree list`: each worktree's path and branch (null when detached). */
  worktrees(repoRoot: string): Array<{ path: string; branch: string | null }>;
  branchExists(repoRoot: string, branch: string): boolean;
  /** What an agent name means (REFERENCE.md §5.2): its runtime slug and the command that starts it. */
  resolveAgent(name: string): { slug: string; tool: string } | null;
  /** The names resolveAgent knows, for the message when it knows none. */
  agentNames(): string[];
  sha256Hex(text: string): string;
}

export interface WorktreePlan {
  branch: string;
  from: string;
  repo_root: string;
  path: string;
  /** `reuse`: a Paneflow worktree for the branch is there already (no copy, no setup). */
  action: 'create' | 'reuse';
  branch_exists: boolean;
  copy_env: boolean;
  setup: string | null;
  setup_timeout_secs: number;
  teardown: 'auto' | 'keep';
  /** The pane's cwd relative to the repository root: it starts at the same place in the worktree. */
  subdir: string;
}

export interface PanePlan {
  /** 1-based, in file order. */
  index: number;
  name: string | null;
  cwd: string;
  command: string | null;
  /** The runtime slug of an agent pane, and the command that starts it. */
  agent: string | null;
  prompt: string | null;
  focus: boolean;
  env: Record<string, string>;
  /** The first port of the pane's stride, once allocated; null when it uses none. */
  port_offset: number | null;
  uses_port_offset: boolean;
  worktree: WorktreePlan | null;
}

export interface WorkspacePlan {
  name: string;
  layout: Layout;
  port_base: number;
  panes: PanePlan[];
}

type Validator = ReturnType<typeof Compile>;
const validators = new WeakMap<TSchema, Validator>();

/** Schema problems in a person's words: unknown keys, missing keys, wrong types. */
export function schemaProblems(schema: TSchema, value: unknown, prefix: string, line: (field: string) => number | undefined): Problem[] {
  let validator = validators.get(schema);
  if (!validator) {
    validator = Compile(schema);
    validators.set(schema, validator);
  }
  if (validator.Check(value)) return [];
  const problems: Problem[] = [];
  const seen = new Set<string>();
  for (const error of validator.Errors(value) as Array<{ keyword: string; instancePath: string; message: string; params: Record<string, unknown> }>) {
    if (error.keyword === 'boolean' || error.keyword === 'anyOf' && problems.some((p) => p.field === fieldOf(error.instancePath))) continue;
    const field = fieldOf(error.instancePath);
    let message: string;
    let at = field;
    if (error.keyword === 'additionalProperties') {
      const key = (error.params.additionalProperties as string[])[0];
      at = field ? `${field}.${key}` : key;
      message = 'unknown key';
    } else if (error.keyword === 'required') {
      const key = (error.params.requiredProperties as string[])[0];
      at = field ? `${field}.${key}` : key;
      message = 'required';
    } else if (error.keyword === 'type') message = `expected ${article(String(error.params.type))}, got ${describe(valueAt(value, error.instancePath))}`;
    else if (error.keyword === 'const' || error.keyword === 'anyOf' || error.keyword === 'enum') message = `expected ${expectedOf(schemaAt(schema, error.instancePath))}, got ${describe(valueAt(value, error.instancePath))}`;
    else message = `${error.message}, got ${describe(valueAt(value, error.instancePath))}`;
    const key = `${at}:${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    problems.push({ prefix, field: at, message, line: line(at.split('.')[0]) });
  }
  return problems;
}

const fieldOf = (path: string) => path.replace(/^\//, '').replaceAll('/', '.');
const article = (type: string) => (type === 'integer' ? 'an integer' : type === 'object' ? 'a table' : type === 'array' ? 'an array' : `a ${type}`);
function describe(value: unknown): string {
  if (typeof value === 'string') return `'${value}'`;
  if (Array.isArray(value)) return 'an array';
  if (value !== null && typeof value === 'object') return 'a table';
  return String(value);
}
function valueAt(root: unknown, path: string): unknown {
  return path
    .split('/')
    .filter(Boolean)
    .reduce<unknown>((v, k) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined), root);
}
function schemaAt(schema: TSchema, path: string): TSchema {
  let node = schema as TSchema & { properties?: Record<string, TSchema>; anyOf?: TSchema[] };
  for (const key of path.split('/').filter(Boolean)) node = (node.properties?.[key] ?? node) as typeof node;
  return node;
}
function expectedOf(schema: TSchema): string {
  const node = schema as TSchema & { anyOf?: Array<{ const?: unknown }>; const?: unknown };
  if (node.anyOf?.every((s) => s.const !== undefined)) return `one of ${node.anyOf.map((s) => String(s.const)).join(', ')}`;
  return 'another value';
}

export interface PaneContext {
  /** `pane N: ` or `step <id>: `. */
  prefix: string;
  line: (field: string) => number | undefined;
  /** The directory relative cwds are taken from: the spec file's. */
  specDir: string;
  /** Worktree paths planned by earlier panes of the same spec, and their branches. */
  claimed: Map<string, string>;
}

/** `~` expanded, relative to the spec's directory, canonicalised. */
export function resolvePath(path: string, specDir: string, host: SpecHost): string {
  const expanded = path === '~' ? host.home : path.startsWith('~/') ? `${host.home}/${path.slice(2)}` : path;
  const absolute = expanded.startsWith('/') ? expanded : `${specDir.replace(/\/$/, '')}/${expanded}`;
  return normalize(absolute);
}

function normalize(path: string): string {
  const parts: string[] = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') parts.pop();
    else parts.push(part);
  }
  return '/' + parts.join('/');
}

/**
 * One pane of a spec, checked and resolved: its cwd found (after expansion and canonicalisation),
 * its agent known and on PATH, its variables allowed, its worktree planned (read-only).
 */
export function resolvePane(
  pane: PaneSpec,
  index: number,
  context: PaneContext,
  host: SpecHost,
  problems: Problem[],
): PanePlan | null {
  const { prefix, line } = context;
  const before = problems.length;
  const problem = (field: string, message: string) => problems.push({ prefix, field, message, line: line(field.split('.')[0]) });
  if (pane.agent !== undefined && pane.command !== undefined) problem('agent', 'agent and command are exclusive; give one');
  if (pane.prompt !== undefined && pane.agent === undefined) problem('prompt', 'prompt requires agent');
  for (const key of ['from', 'copy_env', 'setup', 'setup_timeout_secs', 'worktree_teardown'] as const) {
    if (pane[key] !== undefined && pane.worktree === undefined) problem(key, 'requires worktree');
  }
  const checkVariables = (field: string, text: string, allowPort: boolean) => {
    const { refs, unclosed } = references(text);
    if (unclosed) problem(field, "an unclosed '${'");
    for (const ref of refs) {
      if (ref.name === 'port_offset' && ref.item === null) {
        if (!allowPort) problem(field, '${port_offset} is only allowed in env values');
      } else problem(field, `unknown variable \${${ref.name}${ref.item !== null ? `.${ref.item}` : ''}}${ref.name === 'item' ? ' (only foreach steps have ${item})' : ''}`);
    }
  };
  for (const field of ['cwd', 'command', 'name', 'worktree'] as const) if (pane[field] !== undefined) checkVariables(field, pane[field]!, false);
  const fault = pane.name !== undefined ? nameFault(pane.name) : null;
  if (fault) problem('name', fault.message);
  for (const [key, value] of Object.entries(pane.env ?? {})) checkVariables(`env.${key}`, value, true);

  let runtime = null;
  if (pane.agent !== undefined) {
    runtime = host.resolveAgent(pane.agent);
    if (!runtime) problem('agent', `'${pane.agent}' is not a known agent (${host.agentNames().join(', ')})`);
    else if (!host.onPath(runtime.tool)) problem('agent', `agent '${pane.agent}' not found on PATH (looked for ${runtime.tool})`);
  }
  const cwd = pane.cwd !== undefined ? resolvePath(pane.cwd, context.specDir, host) : host.cwd;
  if (!host.isDirectory(cwd)) problem('cwd', `${cwd} does not exist or is not a directory`);

  let worktree: WorktreePlan | null = null;
  if (pane.worktree !== undefined && problems.length === before) {
    worktree = planWorktree(pane, cwd, host, context.claimed, (message) => problem('worktree', message));
  }
  if (problems.length > before) return null;
  const canonical = host.realpath(cwd);
  return {
    index,
    name: pane.name ?? null,
    cwd: worktree ? (worktree.subdir ? `${worktree.path}/${worktree.subdir}` : worktree.path) : canonical,
    command: pane.command ?? runtime?.tool ?? null,
    agent: runtime?.slug ?? null,
    prompt: pane.prompt ?? null,
    focus: pane.focus ?? false,
    env: { ...pane.env },
    port_offset: null,
    uses_port_offset: Object.values(pane.env ?? {}).some((v) => references(v).refs.some((r) => r.name === 'port_offset')),
    worktree,
  };
}

function planWorktree(pane: PaneSpec, cwd: string, host: SpecHost, claimed: Map<string, string>, problem: (message: string) => void): WorktreePlan | null {
  const branch = pane.worktree!;
  if (pane.cwd === undefined) {
    problem('requires an explicit cwd inside a git repository');
    return null;
  }
  if (branch === '' || branch.startsWith('-')) {
    problem(`'${branch}' is not a branch name (empty, or starting with -)`);
    return null;
  }
  const root = host.gitRoot(cwd);
  if (!root) {
    problem(`cwd ${cwd} is not inside a git repository`);
    return null;
  }
  const realRoot = host.realpath(root);
  const realCwd = host.realpath(cwd);
  const worktrees = host.worktrees(realRoot);
  const occupied = new Map<string, string | null>([...worktrees.map((w) => [w.path, w.branch] as const), ...claimed]);
  const path = worktreePath(realRoot, branch, occupied, host.sha256Hex);
  if (path === null) {
    problem(`'${branch}' gives an empty worktree name`);
    return null;
  }
  const holder = worktrees.find((w) => w.branch === branch);
  if (holder && host.realpath(holder.path) !== path) {
    problem(`branch '${branch}' is checked out in ${holder.path}, a worktree Paneflow does not manage`);
    return null;
  }
  if (claimed.get(path) === branch) {
    problem(`branch '${branch}' has a worktree pane already`);
    return null;
  }
  claimed.set(path, branch);
  return {
    branch,
    from: pane.from ?? 'HEAD',
    repo_root: realRoot,
    path,
    action: holder ? 'reuse' : 'create',
    branch_exists: host.branchExists(realRoot, branch),
    copy_env: pane.copy_env ?? true,
    setup: pane.setup ?? null,
    setup_timeout_secs: pane.setup_timeout_secs ?? 300,
    teardown: pane.worktree_teardown ?? 'auto',
    subdir: realCwd === realRoot ? '' : realCwd.slice(realRoot.length + 1),
  };
}

/** The spec's own `name` (the workspace's) when it cannot be a name (`nameFault`), as a top-level problem. */
export function workspaceNameProblems(data: Record<string, unknown>, text: string): Problem[] {
  const fault = typeof data.name === 'string' ? nameFault(data.name) : null;
  return fault ? [{ prefix: '', field: 'name', message: fault.message, line: locate(text, null, 0, 'name') }] : [];
}

/** Checks across panes: at most one focus, names unique. */
export function crossPaneProblems(panes: Array<{ plan: PanePlan | null; spec: PaneSpec; prefix: string; line: (f: string) => number | undefined }>): Problem[] {
  const problems: Problem[] = [];
  const focused = panes.filter((p) => p.spec.focus);
  if (focused.length > 1) for (const p of focused.slice(1)) problems.push({ prefix: p.prefix, field: 'focus', message: 'at most one pane may have focus', line: p.line('focus') });
  const names = new Map<string, string>();
  for (const p of panes) {
    const name = p.spec.name?.toLowerCase();
    if (!name) continue;
    if (names.has(name)) problems.push({ prefix: p.prefix, field: 'name', message: `'${p.spec.name}' is already the name of ${names.get(name)}`, line: p.line('name') });
    else names.set(name, p.prefix.replace(/: $/, ''));
  }
  return problems;
}

/**
 * Parses and resolves a workspace spec (REFERENCE.md §5.1–§5.4). Every problem is collected and
 * thrown together as a SpecError naming the file and, where it can, the line. Nothing is created:
 * worktrees are planned from `git worktree list`, ports are allocated afterwards (`assignPorts`).
 */
export function parseWorkspace(text: string, file: string, host: SpecHost): WorkspacePlan {
  const parsed = parseToml(text);
  if ('problem' in parsed) throw new SpecError(file, [parsed.problem]);
  const data = parsed.data as Record<string, unknown>;
  const problems = [...schemaProblems(WorkspaceSpec, data, '', (field) => locate(text, null, 0, field)), ...workspaceNameProblems(data, text)];
  const panes = Array.isArray(data.panes) ? data.panes : [];
  if (data.panes === undefined) problems.push({ prefix: '', field: 'panes', message: 'required: at least one [[panes]]' });
  else if (Array.isArray(data.panes) && panes.length === 0) problems.push({ prefix: '', field: 'panes', message: 'at least one [[panes]] is required' });
  else if (panes.length > MAX_PANES) problems.push({ prefix: '', field: 'panes', message: `at most ${MAX_PANES} panes, not ${panes.length}` });
  const specDir = file.includes('/') ? file.slice(0, file.lastIndexOf('/')) : host.cwd;
  const claimed = new Map<string, string>();
  const resolved = panes.map((raw, i) => {
    const prefix = `pane ${i + 1}: `;
    const line = (field: string) => locate(text, 'panes', i, field);
    const shape = schemaProblems(PaneSpec, raw, prefix, line);
    problems.push(...shape);
    const spec = raw as PaneSpec;
    const plan = shape.length === 0 ? resolvePane(spec, i + 1, { prefix, line, specDir: specDir.startsWith('/') ? specDir : `${host.cwd}/${specDir}`, claimed }, host, problems) : null;
    return { plan, spec, prefix, line };
  });
  problems.push(...crossPaneProblems(resolved));
  if (problems.length > 0) throw new SpecError(file, problems);
  return {
    name: (data.name as string | undefined) ?? 'Workspace',
    layout: (data.layout as Layout | undefined) ?? DEFAULT_LAYOUT,
    port_base: (data.port_base as number | undefined) ?? 3000,
    panes: resolved.map((r) => r.plan!),
  };
}

/**
 * Gives each pane that uses `${port_offset}` the next free stride of 10 ports (REFERENCE.md §5.3),
 * in file order, and substitutes it. `strides` are the first ports of free strides, in order.
 */
export function assignPorts<P extends { uses_port_offset: boolean; port_offset: number | null; env: Record<string, string> }>(panes: P[], strides: number[]): P[] {
  let next = 0;
  return panes.map((pane) => {
    if (!pane.uses_port_offset) return pane;
    const port = strides[next++];
    if (port === undefined) throw new Error('not enough free port strides');
    const env = Object.fromEntries(Object.entries(pane.env).map(([k, v]) => [k, substitute(v, (r) => (r.name === 'port_offset' && r.item === null ? String(port) : undefined))]));
    return { ...pane, env, port_offset: port };
  });
}
