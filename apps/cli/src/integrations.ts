// `paneflow hooks setup|status|uninstall`, `paneflow mcp install|status|uninstall` and `paneflow
// integrations list|install|remove` (REFERENCE.md §7.3, §8): Paneflow's entries in the agents' own
// config files. Which agents, where their files are and in which format is their descriptors'
// `[integration]` (runtimes/*/runtime.toml); this file only knows how to edit each format.
import { writeTextAtomic } from '@paneflow/instance/files';
import { programPath } from '@paneflow/instance/programs';
import { configDir, resolveAgent, resolvePath, runtimeCatalog, type Runtime } from '@paneflow/procscan';
import { displayText } from '@paneflow/view';
import { existsSync, mkdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  checkToml,
  codexMcpState,
  hooksState,
  JSON_MCP_FORMATS,
  jsonMcpState,
  managedGroup,
  withCodexMcp,
  withHooks,
  withJsonMcp,
  withoutCodexMcp,
  withoutHooks,
  withoutJsonMcp,
  type InstallState,
  type JsonMcpFormat,
} from './agent-config';
import { CliError } from './errors';
import { onPath } from './path';
import type { HookTool } from '@paneflow/protocol/hooks';

type Json = Record<string, unknown>;

/** An agent with hooks or an MCP server list to edit; a file is null for a part it does not have. */
interface Target {
  runtime: Runtime;
  detected: boolean;
  hooksFile: string | null;
  mcpFile: string | null;
}

/** What Paneflow can wire for an agent; null when its descriptor names nothing (or no place resolves). */
function targetOf(runtime: Runtime): Target | null {
  // The user's own environment: where the agent will look when it next starts.
  const env = { ...process.env, HOME: homedir() };
  const { integration } = runtime;
  const dir = configDir(runtime, env);
  // The catalog wants a config_dir beside hooks_file and mcp_file.
  if (dir === null) return null;
  const hooksFile = integration.hook_adapter !== 'none' ? join(dir, integration.hooks_file!) : null;
  const mcpFile = integration.mcp_file ? resolvePath(integration.mcp_file, env, dir) : null;
  if (hooksFile === null && mcpFile === null) return null;
  return { runtime, detected: onPath(runtime.tool) || existsSync(dir), hooksFile, mcpFile };
}

function targets(): Target[] {
  return runtimeCatalog().runtimes.flatMap((runtime) => targetOf(runtime) ?? []);
}

/** A line for the terminal: paths and texts come from the environment and descriptors, so they are cleaned. */
const print = (line: string) => process.stdout.write(`${displayText(line)}\n`);

/** A runtime that could not be processed; the others still are. */
class RuntimeFailure extends Error {}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new RuntimeFailure(`cannot read ${path}: ${(error as Error).message}`);
  }
}

/** JSON.parse's complaint with the line and column it is at (Node 20 gives only a character offset). */
function jsonProblem(text: string, error: Error): string {
  const at = /at position (\d+)/.exec(error.message);
  if (!at || /\(line \d+/.test(error.message)) return error.message;
  const before = text.slice(0, Number(at[1])).split('\n');
  return `${error.message.replace(/ in JSON at position \d+/, '')} at line ${before.length} column ${before.at(-1)!.length + 1}`;
}

function parseJsonFile(path: string, text: string | undefined): Json {
  if (text === undefined || text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new RuntimeFailure(`${path} is not valid JSON (${jsonProblem(text, error as Error)}); left untouched`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new RuntimeFailure(`${path} does not hold a JSON object; left untouched`);
  return value as Json;
}

/**
 * Applies `edit` to a file's text. Unchanged text is not written at all; otherwise the first
 * change leaves `<file>.bak`, and the new text replaces the old atomically, with its mode.
 * Errors name the path as the user knows it.
 */
function editFile(link: string, edit: (text: string | undefined) => string | undefined): boolean {
  // A symlinked file (dotfile managers) is edited where it really is, and stays a symlink.
  const path = existsSync(link) ? realpathSync(link) : link;
  const text = readText(path);
  let next: string | undefined;
  try {
    next = edit(text);
  } catch (error) {
    if (error instanceof RuntimeFailure) throw error;
    throw new RuntimeFailure(`${path}: ${(error as Error).message}; left untouched`);
  }
  if (next === undefined || next === text) return false;
  mkdirSync(dirname(path), { recursive: true });
  const mode = text === undefined ? 0o600 : statSync(path).mode & 0o7777;
  if (text !== undefined && !existsSync(`${path}.bak`)) writeTextAtomic(`${path}.bak`, text, mode);
  writeTextAtomic(path, next, mode);
  return true;
}

function editJson(path: string, edit: (value: Json) => Json, createIfAbsent: boolean): boolean {
  return editFile(path, (text) => {
    if (text === undefined && !createIfAbsent) return undefined;
    const before = parseJsonFile(path, text);
    const after = edit(before);
    return JSON.stringify(after) === JSON.stringify(before) && text !== undefined ? undefined : JSON.stringify(after, null, 2) + '\n';
  });
}

function tomlState(path: string, text: string | undefined, mcpPath: string): InstallState {
  if (text === undefined) return 'absent';
  try {
    checkToml(text);
  } catch (error) {
    throw new RuntimeFailure(`${path} is not valid TOML (${(error as Error).message.split('\n')[0]}); left untouched`);
  }
  return codexMcpState(text, mcpPath);
}

// ------------------------------------------------------------------------------ the two parts

interface Part {
  what: string;
  file(target: Target): string | null;
  install(target: Target, file: string): boolean;
  remove(target: Target, file: string): boolean;
  state(target: Target, file: string): InstallState;
}

/** The matcher group of each event, for the agent's hook adapter. */
function hookGroup(target: Target): (event: string) => Json {
  const hookPath = programPath('paneflow-ai-hook');
  const tool = target.runtime.integration.hook_adapter as HookTool; // not 'none': it has a hooks file
  return (event) => managedGroup(hookPath, event, tool);
}

const HOOKS: Part = {
  what: 'hooks',
  file: (target) => target.hooksFile,
  install: (target, file) => editJson(file, (settings) => withHooks(settings, hookGroup(target)), true),
  remove: (_target, file) => editJson(file, withoutHooks, false),
  state: (target, file) => hooksState(parseJsonFile(file, readText(file)), hookGroup(target)),
};

interface McpEdits {
  install(file: string, mcpPath: string): boolean;
  remove(file: string): boolean;
  state(file: string, mcpPath: string): InstallState;
}

function jsonEdits(format: JsonMcpFormat): McpEdits {
  return {
    install: (file, mcpPath) => editJson(file, (config) => withJsonMcp(config, format, mcpPath), true),
    remove: (file) => editJson(file, (config) => withoutJsonMcp(config, format), false),
    state: (file, mcpPath) => jsonMcpState(parseJsonFile(file, readText(file)), format, mcpPath),
  };
}

/** How each `mcp_config` format is edited (REFERENCE.md §8): the format adapters; which agent uses which is runtime data. */
const MCP_FORMATS: Record<NonNullable<Runtime['integration']['mcp_config']>, McpEdits> = {
  claude: jsonEdits(JSON_MCP_FORMATS.claude),
  gemini: jsonEdits(JSON_MCP_FORMATS.gemini),
  opencode: jsonEdits(JSON_MCP_FORMATS.opencode),
  codex: {
    install: (file, mcpPath) => editFile(file, (text) => (tomlState(file, text, mcpPath) === 'installed' ? undefined : withCodexMcp(text ?? '', mcpPath))),
    remove: (file) => editFile(file, (text) => (tomlState(file, text, '') === 'absent' ? undefined : withoutCodexMcp(text!))),
    state: (file, mcpPath) => tomlState(file, readText(file), mcpPath),
  },
};

function mcpEdits(target: Target): McpEdits {
  // The catalog wants mcp_config beside mcp_file.
  return MCP_FORMATS[target.runtime.integration.mcp_config!];
}

const MCP: Part = {
  what: 'MCP server',
  file: (target) => target.mcpFile,
  install: (target, file) => mcpEdits(target).install(file, programPath('paneflow-mcp')),
  remove: (target, file) => mcpEdits(target).remove(file),
  state: (target, file) => mcpEdits(target).state(file, programPath('paneflow-mcp')),
};

// ------------------------------------------------------------------------------ verbs

/** Runs `action` for each agent given that has any of `parts`; one that fails is reported and the rest go on. Exit 1 if any failed. */
function eachTarget(parts: Part[], all: Target[], action: (target: Target, say: (line: string) => void) => void): number {
  let failed = false;
  for (const target of all.filter((t) => parts.some((part) => part.file(t) !== null))) {
    const say = (line: string) => print(`${target.runtime.slug}: ${line}`);
    try {
      action(target, say);
    } catch (error) {
      failed = true;
      process.stderr.write(`paneflow: ${displayText(`${target.runtime.slug}: ${(error as Error).message}`)}\n`);
    }
  }
  return failed ? 1 : 0;
}

/** The parts an agent has, each with its file. */
const partsOf = (parts: Part[], target: Target) => parts.flatMap((part) => (part.file(target) === null ? [] : [{ part, file: part.file(target)! }]));

/** Installs `parts` for the agents given; one not detected is skipped unless named on purpose (`integrations install`). */
function install(parts: Part[], all = targets(), evenUndetected = false): number {
  return eachTarget(parts, all, (target, say) => {
    if (!target.detected && !evenUndetected) return say('not_detected (skipped)');
    for (const { part, file } of partsOf(parts, target)) say(`${part.what} ${part.install(target, file) ? 'installed in' : 'already installed in'} ${file}`);
    const step = target.runtime.integration.post_install_step;
    if (step && parts.includes(HOOKS) && target.hooksFile !== null) say(step);
  });
}

function uninstall(parts: Part[], all = targets()): number {
  return eachTarget(parts, all, (target, say) => {
    for (const { part, file } of partsOf(parts, target)) say(`${part.what} ${part.remove(target, file) ? 'removed from' : 'not in'} ${file}`);
  });
}

/** One part of an agent's wiring: its state (`not_detected` for an agent neither installed nor there), where, and why it could not be read. */
export interface WiringState {
  state: InstallState | 'not_detected';
  file: string;
  problem: string | null;
}

function readPart(part: Part, target: Target, file: string): WiringState {
  try {
    const state = part.state(target, file);
    return { state: !target.detected && state === 'absent' ? 'not_detected' : state, file, problem: null };
  } catch (error) {
    return { state: 'absent', file, problem: (error as Error).message };
  }
}

/** One part's state and its line for `status` and `integrations list`. */
function partState(part: Part, target: Target, file: string): { state: InstallState | 'not_detected'; line: string } {
  const { state, problem } = readPart(part, target, file);
  return { state, line: problem ? `absent (${problem})` : state === 'not_detected' ? state : `${state} (${file})` };
}

/** The descriptor's one-line summary, under the agent's state line. */
const summary = (runtime: Runtime) => print(`  ${runtime.integration.summary}`);

/** `<runtime>: <state>` per agent, each with its summary; always exit 0 (REFERENCE.md §7.3). */
function status(part: Part, withSummary: boolean): number {
  for (const target of targets()) {
    const file = part.file(target);
    if (file === null) continue;
    print(`${target.runtime.slug}: ${partState(part, target, file).line}`);
    if (withSummary) summary(target.runtime);
  }
  return 0;
}

/** Several parts' states as one: the same state everywhere is that state; otherwise outdated if one is, else partial. */
function overall(states: Array<InstallState | 'not_detected'>): InstallState | 'not_detected' {
  if (states.every((s) => s === states[0])) return states[0];
  return states.includes('outdated') ? 'outdated' : 'partial';
}

/** `integrations list`: every agent of the catalog, what it has wired, its summary and its launcher presets; always exit 0. */
function list(): number {
  for (const runtime of runtimeCatalog().runtimes) {
    const target = targetOf(runtime);
    if (target === null) print(`${runtime.slug}: none (no hooks or MCP server to install)`);
    else {
      const parts = partsOf([HOOKS, MCP], target).map(({ part, file }) => ({ what: part.what, ...partState(part, target, file) }));
      const state = overall(parts.map((p) => p.state));
      print(`${runtime.slug}: ${state}${state === 'not_detected' ? '' : ` — ${parts.map((p) => `${p.what} ${p.line}`).join(', ')}`}`);
    }
    summary(runtime);
    for (const preset of runtime.suggested_presets ?? []) print(`  preset ${preset.id}: ${preset.command} (paneflow new --preset ${preset.id})`);
  }
  return 0;
}

/** The one agent `integrations install|remove` names: a usage error (exit 2) for a name the catalog does not know, exit 1 for an agent with nothing to wire. */
function named(name: string): Target {
  const catalog = runtimeCatalog();
  const runtime = resolveAgent(catalog, name);
  if (runtime === null) throw new CliError(`unknown runtime '${displayText(name)}'; one of: ${catalog.runtimes.map((r) => r.slug).join(', ')}`, 2);
  const target = targetOf(runtime);
  if (target === null) {
    const wired = catalog.runtimes.filter((r) => targetOf(r) !== null).map((r) => r.slug);
    throw new CliError(`${runtime.slug}: ${runtime.label} has no integration to install (no hooks, no MCP server list); these do: ${wired.join(', ')}`, 1);
  }
  return target;
}

/** `hooks setup` also registers the MCP server, and `hooks uninstall` removes both (REFERENCE.md §7.3). */
export const hooksSetup = () => install([HOOKS, MCP]);
export const hooksUninstall = () => uninstall([HOOKS, MCP]);
export const hooksStatus = () => status(HOOKS, true);
export const mcpInstall = () => install([MCP]);
export const mcpUninstall = () => uninstall([MCP]);
export const mcpStatus = () => status(MCP, false);
export const integrationsList = () => list();
/** Named on purpose, so installed even when the agent is not detected yet. */
export const integrationsInstall = (name: string) => install([HOOKS, MCP], [named(name)], true);
export const integrationsRemove = (name: string) => uninstall([HOOKS, MCP], [named(name)]);

/** An agent's hooks and MCP server registration, as `paneflow doctor` reports them; null for a part it has none of. */
export function wiringOf(runtime: Runtime): { hooks: WiringState | null; mcp: WiringState | null } {
  const target = targetOf(runtime);
  const one = (part: Part): WiringState | null => {
    const file = target ? part.file(target) : null;
    return target === null || file === null ? null : readPart(part, target, file);
  };
  return { hooks: one(HOOKS), mcp: one(MCP) };
}
