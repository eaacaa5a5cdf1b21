// `paneflow hooks setup|status|uninstall` and `paneflow mcp install|status|uninstall`
// (REFERENCE.md §7.3, §8): Paneflow's entries in the agents' own config files. Which agents, and
// where their files are, is their descriptors' `[integration]` (runtimes/*/runtime.toml).
import { writeTextAtomic } from '@paneflow/instance/files';
import { programPath } from '@paneflow/instance/programs';
import { configDir, resolvePath, runtimeCatalog, type Runtime } from '@paneflow/procscan';
import { existsSync, mkdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  checkToml,
  claudeMcpEntry,
  claudeMcpState,
  codexMcpState,
  hooksState,
  managedGroup,
  withClaudeMcp,
  withCodexMcp,
  withHooks,
  withoutClaudeMcp,
  withoutCodexMcp,
  withoutHooks,
  type InstallState,
} from './agent-config';
import { onPath } from './spec-host';
import type { HookTool } from '@paneflow/protocol/hooks';

type Json = Record<string, unknown>;

/** An agent with hooks or an MCP server list to edit; a file is null for a part it does not have. */
interface Target {
  runtime: Runtime;
  detected: boolean;
  hooksFile: string | null;
  mcpFile: string | null;
}

function targets(): Target[] {
  // The user's own environment: where the agent will look when it next starts.
  const env = { ...process.env, HOME: homedir() };
  return runtimeCatalog().runtimes.flatMap((runtime) => {
    const { integration } = runtime;
    const dir = configDir(runtime, env);
    // The catalog wants a config_dir beside hooks_file and mcp_file.
    if (dir === null) return [];
    const hooksFile = integration.hook_adapter !== 'none' ? join(dir, integration.hooks_file!) : null;
    const mcpFile = integration.mcp_file ? resolvePath(integration.mcp_file, env, dir) : null;
    if (hooksFile === null && mcpFile === null) return [];
    return [{ runtime, detected: onPath(runtime.tool) || existsSync(dir), hooksFile, mcpFile }];
  });
}

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

function parseJsonFile(path: string, text: string | undefined): Json {
  if (text === undefined || text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new RuntimeFailure(`${path} is not valid JSON (${(error as Error).message}); left untouched`);
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

/** How each `mcp_config` format is edited; REFERENCE.md §8's Gemini CLI and opencode formats are not written yet. */
const MCP_FORMATS: Partial<Record<NonNullable<Runtime['integration']['mcp_config']>, McpEdits>> = {
  claude: {
    install: (file, mcpPath) => editJson(file, (config) => withClaudeMcp(config, claudeMcpEntry(mcpPath)), true),
    remove: (file) => editJson(file, withoutClaudeMcp, false),
    state: (file, mcpPath) => claudeMcpState(parseJsonFile(file, readText(file)), claudeMcpEntry(mcpPath)),
  },
  codex: {
    install: (file, mcpPath) => editFile(file, (text) => (tomlState(file, text, mcpPath) === 'installed' ? undefined : withCodexMcp(text ?? '', mcpPath))),
    remove: (file) => editFile(file, (text) => (tomlState(file, text, '') === 'absent' ? undefined : withoutCodexMcp(text!))),
    state: (file, mcpPath) => tomlState(file, readText(file), mcpPath),
  },
};

function mcpEdits(target: Target): McpEdits {
  const format = target.runtime.integration.mcp_config;
  const edits = format && MCP_FORMATS[format];
  if (!edits) throw new RuntimeFailure(`Paneflow cannot edit an MCP config of format '${format}'`);
  return edits;
}

const MCP: Part = {
  what: 'MCP server',
  file: (target) => target.mcpFile,
  install: (target, file) => mcpEdits(target).install(file, programPath('paneflow-mcp')),
  remove: (target, file) => mcpEdits(target).remove(file),
  state: (target, file) => mcpEdits(target).state(file, programPath('paneflow-mcp')),
};

// ------------------------------------------------------------------------------ verbs

/** Runs `action` for each agent that has any of `parts`; one that fails is reported and the rest go on. Exit 1 if any failed. */
function eachTarget(parts: Part[], action: (target: Target, say: (line: string) => void) => void): number {
  let failed = false;
  for (const target of targets().filter((t) => parts.some((part) => part.file(t) !== null))) {
    const say = (line: string) => process.stdout.write(`${target.runtime.slug}: ${line}\n`);
    try {
      action(target, say);
    } catch (error) {
      failed = true;
      process.stderr.write(`paneflow: ${target.runtime.slug}: ${(error as Error).message}\n`);
    }
  }
  return failed ? 1 : 0;
}

/** The parts an agent has, each with its file. */
const partsOf = (parts: Part[], target: Target) => parts.flatMap((part) => (part.file(target) === null ? [] : [{ part, file: part.file(target)! }]));

function install(parts: Part[]): number {
  return eachTarget(parts, (target, say) => {
    if (!target.detected) return say('not_detected (skipped)');
    for (const { part, file } of partsOf(parts, target)) say(`${part.what} ${part.install(target, file) ? 'installed in' : 'already installed in'} ${file}`);
    const step = target.runtime.integration.post_install_step;
    if (step && parts.includes(HOOKS) && target.hooksFile !== null) say(step);
  });
}

function uninstall(parts: Part[]): number {
  return eachTarget(parts, (target, say) => {
    for (const { part, file } of partsOf(parts, target)) say(`${part.what} ${part.remove(target, file) ? 'removed from' : 'not in'} ${file}`);
  });
}

/** `<runtime>: <state>` per agent; always exit 0 (REFERENCE.md §7.3). */
function status(part: Part): number {
  for (const target of targets()) {
    const file = part.file(target);
    if (file === null) continue;
    let line: string;
    try {
      const state = part.state(target, file);
      line = !target.detected && state === 'absent' ? 'not_detected' : `${state} (${file})`;
    } catch (error) {
      line = `absent (${(error as Error).message})`;
    }
    process.stdout.write(`${target.runtime.slug}: ${line}\n`);
  }
  return 0;
}

/** `hooks setup` also registers the MCP server, and `hooks uninstall` removes both (REFERENCE.md §7.3). */
export const hooksSetup = () => install([HOOKS, MCP]);
export const hooksUninstall = () => uninstall([HOOKS, MCP]);
export const hooksStatus = () => status(HOOKS);
export const mcpInstall = () => install([MCP]);
export const mcpUninstall = () => uninstall([MCP]);
export const mcpStatus = () => status(MCP);
