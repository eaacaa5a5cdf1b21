// The edits `hooks` and `mcp` make to an agent's own config (REFERENCE.md §7.3, §8), as functions
// of the file's content: no I/O here, integrations.ts reads and writes.
import TOML from '@ltd/j-toml';
import { DEFAULT_HOOK_TOOL, INSTALLED_HOOK_EVENTS as HOOKED_EVENTS, type HookTool } from '@paneflow/protocol/hooks';

export const MANAGED = '_paneflow_managed';
const HOOK_TIMEOUT_SECS = 5;

export type InstallState = 'installed' | 'partial' | 'outdated' | 'absent';
type Json = Record<string, unknown>;

export function shellQuote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** The matcher group Paneflow adds under `hooks.<event>`. */
export function managedGroup(hookPath: string, event: string, tool: HookTool): Json {
  const command = `${shellQuote(hookPath)} ${tool === DEFAULT_HOOK_TOOL ? '' : `--tool ${tool} `}${event}`;
  return { [MANAGED]: true, hooks: [{ type: 'command', command, timeout: HOOK_TIMEOUT_SECS }] };
}

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const isManaged = (group: unknown) => isObject(group) && group[MANAGED] === true;
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** The settings' `hooks` table, checked: a file whose hooks are not the documented shape is not ours to rewrite. */
function hooksTable(settings: Json): Record<string, unknown[]> {
  const hooks = settings.hooks ?? {};
  if (!isObject(hooks)) throw new Error('"hooks" is not an object');
  for (const [event, groups] of Object.entries(hooks)) if (!Array.isArray(groups)) throw new Error(`"hooks.${event}" is not an array`);
  return hooks as Record<string, unknown[]>;
}

/**
 * The settings with Paneflow's group under every hooked event: a managed group is replaced where
 * it stands, never duplicated; the user's own groups and every other key keep their order.
 */
export function withHooks(settings: Json, group: (event: string) => Json): Json {
  const next = structuredClone(settings);
  const hooks = hooksTable(next);
  for (const event of HOOKED_EVENTS) {
    const groups = hooks[event] ?? [];
    const at = groups.findIndex(isManaged);
    if (at === -1) groups.push(group(event));
    else {
      groups[at] = group(event);
      hooks[event] = groups.filter((g, i) => i === at || !isManaged(g));
      continue;
    }
    hooks[event] = groups;
  }
  next.hooks = hooks;
  return next;
}

/** The settings without Paneflow's groups; an event left with none goes, and so does an empty `hooks`. */
export function withoutHooks(settings: Json): Json {
  const next = structuredClone(settings);
  if (next.hooks === undefined) return next;
  const hooks = hooksTable(next);
  for (const [event, groups] of Object.entries(hooks)) {
    if (!groups.some(isManaged)) continue;
    const kept = groups.filter((g) => !isManaged(g));
    if (kept.length === 0) delete hooks[event];
    else hooks[event] = kept;
  }
  if (Object.keys(hooks).length === 0) delete next.hooks;
  return next;
}

export function hooksState(settings: Json, group: (event: string) => Json): InstallState {
  const hooks = isObject(settings.hooks) ? settings.hooks : {};
  const found = HOOKED_EVENTS.map((event) => {
    const groups = hooks[event];
    return Array.isArray(groups) ? groups.find(isManaged) : undefined;
  });
  if (found.every((g) => g === undefined)) return 'absent';
  if (found.some((g) => g === undefined)) return 'partial';
  return found.every((g, i) => same(g, group(HOOKED_EVENTS[i]))) ? 'installed' : 'outdated';
}

/**
 * An MCP server list kept in a JSON file (REFERENCE.md §8): the object under `key` that holds the
 * servers, Paneflow's entry for a `paneflow-mcp` path, and the keys of it that Paneflow owns (the
 * user's other keys of the entry, such as `env`, stay).
 */
export interface JsonMcpFormat {
  key: string;
  entry(mcpPath: string): Json;
  owned: readonly string[];
}

/** The JSON formats by a runtime.toml's `mcp_config`: each as its agent reads it. */
export const JSON_MCP_FORMATS = {
  /** What `claude mcp add --scope user paneflow -- <path>` writes. */
  claude: { key: 'mcpServers', entry: (mcpPath) => ({ type: 'stdio', command: mcpPath, args: [], env: {} }), owned: ['type', 'command', 'args'] },
  /** Gemini CLI's settings.json: a stdio server is `command` and `args`; `trust` skips its per-call confirmation. */
  gemini: { key: 'mcpServers', entry: (mcpPath) => ({ command: mcpPath, args: [], trust: true }), owned: ['command', 'args', 'trust'] },
  /** opencode's config: a local server is `type: "local"` with the whole argv in `command`. */
  opencode: { key: 'mcp', entry: (mcpPath) => ({ type: 'local', command: [mcpPath], enabled: true }), owned: ['type', 'command', 'enabled'] },
} satisfies Record<string, JsonMcpFormat>;

function serversOf(config: Json, format: JsonMcpFormat): Json {
  const servers = config[format.key] ?? {};
  if (!isObject(servers)) throw new Error(`"${format.key}" is not an object`);
  return servers;
}

/** Paneflow's entry set; on an entry that is there already only what Paneflow owns changes, in place. */
export function withJsonMcp(config: Json, format: JsonMcpFormat, mcpPath: string): Json {
  const next = structuredClone(config);
  const servers = serversOf(next, format);
  const entry = format.entry(mcpPath);
  const current = servers.paneflow;
  if (!isObject(current)) servers.paneflow = entry;
  else {
    for (const key of format.owned) current[key] = entry[key];
    for (const [key, value] of Object.entries(entry)) if (!(key in current)) current[key] = value;
  }
  next[format.key] = servers;
  return next;
}

/** The config without Paneflow's entry; the server list stays, even empty (it may be the user's). */
export function withoutJsonMcp(config: Json, format: JsonMcpFormat): Json {
  const next = structuredClone(config);
  if (next[format.key] === undefined) return next;
  delete serversOf(next, format).paneflow;
  return next;
}

const ours = (current: unknown, wanted: Json, keys: readonly string[]) => isObject(current) && keys.every((key) => same(current[key], wanted[key]));

export function jsonMcpState(config: Json, format: JsonMcpFormat, mcpPath: string): InstallState {
  const current = isObject(config[format.key]) ? (config[format.key] as Json).paneflow : undefined;
  return current === undefined ? 'absent' : ours(current, format.entry(mcpPath), format.owned) ? 'installed' : 'outdated';
}

// Codex keeps its MCP servers in TOML. The file is edited as text, so the user's comments and
// layout stay; the result is parsed again to prove the edit says what it should.

const OUR_TABLE = /^\s*\[\s*mcp_servers\s*\.\s*(?:paneflow|"paneflow")\s*(?:\.[^\]]*)?\]\s*(?:#.*)?$/;
const ANY_TABLE = /^\s*\[/;

function parseToml(text: string): Json {
  return TOML.parse(text, { bigint: false, joiner: '\n' }) as Json;
}

function codexServer(text: string): unknown {
  const servers = parseToml(text).mcp_servers;
  return isObject(servers) ? servers.paneflow : undefined;
}

export function codexMcpBlock(mcpPath: string): string {
  return `[mcp_servers.paneflow]\ncommand = ${JSON.stringify(mcpPath)}\nargs = []\n`;
}

const OUR_MAIN_TABLE = /^\s*\[\s*mcp_servers\s*\.\s*(?:paneflow|"paneflow")\s*\]\s*(?:#.*)?$/;
const COMMENT = /^\s*#/;
const MULTI_LINE_VALUE = /^\s*(command|args)\s*=\s*(\[[^\]]*|"""|''')\s*$/;

/**
 * `text` without the `[mcp_servers.paneflow]` table and its sub-tables. Comments right above the
 * next table are that table's, and stay.
 */
function withoutOurTable(text: string): string {
  const kept: string[] = [];
  let removed: string[] = [];
  let inside = false;
  for (const line of text.split('\n')) {
    if (OUR_TABLE.test(line)) {
      inside = true;
      removed.push(line);
      continue;
    }
    if (inside && ANY_TABLE.test(line)) {
      inside = false;
      let from = removed.length;
      while (from > 0 && (COMMENT.test(removed[from - 1]) || removed[from - 1].trim() === '')) from--;
      const firstComment = removed.findIndex((l, i) => i >= from && COMMENT.test(l));
      if (firstComment !== -1) kept.push(...removed.slice(firstComment));
      removed = [];
    }
    if (inside) removed.push(line);
    else kept.push(line);
  }
  return kept.join('\n');
}

/** Sets `command` and `args` inside an existing `[mcp_servers.paneflow]`, keeping its other keys; null when there is none to edit. */
function withOurKeys(text: string, mcpPath: string): string | null {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => OUR_MAIN_TABLE.test(l));
  if (start === -1) return null;
  let end = start + 1;
  while (end < lines.length && !ANY_TABLE.test(lines[end])) end++;
  const body = lines.slice(start + 1, end);
  // A value over several lines is not edited line by line: the caller replaces the table.
  if (body.some((l) => MULTI_LINE_VALUE.test(l))) return null;
  for (const [key, value] of [
    ['args', '[]'],
    ['command', JSON.stringify(mcpPath)],
  ] as const) {
    const at = body.findIndex((l) => new RegExp(`^\\s*${key}\\s*=`).test(l));
    if (at === -1) body.unshift(`${key} = ${value}`);
    else body[at] = `${key} = ${value}`;
  }
  return [...lines.slice(0, start + 1), ...body, ...lines.slice(end)].join('\n');
}

const NOT_OURS = 'mcp_servers.paneflow is defined in a form Paneflow does not edit (an inline table?)';

export function withCodexMcp(text: string, mcpPath: string): string {
  const edited = withOurKeys(text, mcpPath);
  if (edited !== null && codexMcpState(edited, mcpPath) === 'installed') return edited;
  const rest = withoutOurTable(text);
  if (codexServer(rest) !== undefined) throw new Error(NOT_OURS);
  const kept = rest.replace(/\n*$/, '');
  const next = `${kept}${kept ? '\n\n' : ''}${codexMcpBlock(mcpPath)}`;
  // Parsed again: a file that defines mcp_servers inline cannot take the table.
  if (codexMcpState(next, mcpPath) !== 'installed') throw new Error(NOT_OURS);
  return next;
}

export function withoutCodexMcp(text: string): string {
  const next = withoutOurTable(text).replace(/\n+$/, '\n');
  if (codexServer(next) !== undefined) throw new Error(NOT_OURS);
  return next;
}

export function codexMcpState(text: string, mcpPath: string): InstallState {
  const current = codexServer(text);
  return current === undefined ? 'absent' : ours(current, { command: mcpPath, args: [] }, ['command', 'args']) ? 'installed' : 'outdated';
}

/** Parses the TOML text, or says why it is not TOML. */
export function checkToml(text: string): void {
  parseToml(text);
}
