// `paneflow hooks setup|status|uninstall` and `paneflow mcp install|status|uninstall`
// (REFERENCE.md §7.3, §8): Paneflow's entries in Claude Code's and Codex's own config files.
import { writeTextAtomic } from '@paneflow/instance/files';
import { programPath } from '@paneflow/instance/programs';
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

interface Runtime {
  slug: 'claude-code' | 'codex';
  tool: HookTool;
  detected: boolean;
  hooksFile: string;
  mcpFile: string;
}

function runtimes(): Runtime[] {
  const env = process.env;
  const claudeDir = env.CLAUDE_CONFIG_DIR || join(homedir(), '.claude');
  const codexHome = env.CODEX_HOME || join(homedir(), '.codex');
  return [
    {
      slug: 'claude-code',
      tool: 'claude',
      detected: onPath('claude') || existsSync(claudeDir),
      hooksFile: join(claudeDir, 'settings.json'),
      mcpFile: env.CLAUDE_CONFIG_DIR ? join(env.CLAUDE_CONFIG_DIR, '.claude.json') : join(homedir(), '.claude.json'),
    },
    {
      slug: 'codex',
      tool: 'codex',
      detected: onPath('codex') || existsSync(codexHome),
      hooksFile: join(codexHome, 'hooks.json'),
      mcpFile: join(codexHome, 'config.toml'),
    },
  ];
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

const hookGroup = (runtime: Runtime, hookPath: string) => (event: string) => managedGroup(hookPath, event, runtime.tool);

const HOOKS = {
  install(runtime: Runtime): boolean {
    const group = hookGroup(runtime, programPath('paneflow-ai-hook'));
    return editJson(runtime.hooksFile, (settings) => withHooks(settings, group), true);
  },
  remove: (runtime: Runtime): boolean => editJson(runtime.hooksFile, withoutHooks, false),
  state(runtime: Runtime): InstallState {
    const settings = parseJsonFile(runtime.hooksFile, readText(runtime.hooksFile));
    return hooksState(settings, hookGroup(runtime, programPath('paneflow-ai-hook')));
  },
};

const MCP = {
  install(runtime: Runtime): boolean {
    const mcpPath = programPath('paneflow-mcp');
    if (runtime.slug === 'claude-code') return editJson(runtime.mcpFile, (config) => withClaudeMcp(config, claudeMcpEntry(mcpPath)), true);
    return editFile(runtime.mcpFile, (text) => (tomlState(runtime.mcpFile, text, mcpPath) === 'installed' ? undefined : withCodexMcp(text ?? '', mcpPath)));
  },
  remove(runtime: Runtime): boolean {
    if (runtime.slug === 'claude-code') return editJson(runtime.mcpFile, withoutClaudeMcp, false);
    return editFile(runtime.mcpFile, (text) => (tomlState(runtime.mcpFile, text, '') === 'absent' ? undefined : withoutCodexMcp(text!)));
  },
  state(runtime: Runtime): InstallState {
    const mcpPath = programPath('paneflow-mcp');
    const text = readText(runtime.mcpFile);
    if (runtime.slug === 'codex') return tomlState(runtime.mcpFile, text, mcpPath);
    return claudeMcpState(parseJsonFile(runtime.mcpFile, text), claudeMcpEntry(mcpPath));
  },
};

type Part = typeof HOOKS;
const fileOf = (part: Part, runtime: Runtime) => (part === HOOKS ? runtime.hooksFile : runtime.mcpFile);
const what = (part: Part) => (part === HOOKS ? 'hooks' : 'MCP server');

// ------------------------------------------------------------------------------ verbs

/** Runs `action` for each runtime; one that fails is reported and the rest go on. Exit 1 if any failed. */
function eachRuntime(action: (runtime: Runtime, say: (line: string) => void) => void): number {
  let failed = false;
  for (const runtime of runtimes()) {
    const say = (line: string) => process.stdout.write(`${runtime.slug}: ${line}\n`);
    try {
      action(runtime, say);
    } catch (error) {
      failed = true;
      process.stderr.write(`paneflow: ${runtime.slug}: ${(error as Error).message}\n`);
    }
  }
  return failed ? 1 : 0;
}

function install(parts: Part[]): number {
  return eachRuntime((runtime, say) => {
    if (!runtime.detected) return say('not_detected (skipped)');
    for (const part of parts) say(`${what(part)} ${part.install(runtime) ? 'installed in' : 'already installed in'} ${fileOf(part, runtime)}`);
    if (runtime.slug === 'codex' && parts.includes(HOOKS)) say('trust the hooks once in Codex with /hooks');
  });
}

function uninstall(parts: Part[]): number {
  return eachRuntime((runtime, say) => {
    for (const part of parts) say(`${what(part)} ${part.remove(runtime) ? 'removed from' : 'not in'} ${fileOf(part, runtime)}`);
  });
}

/** `<runtime>: <state>` per runtime; always exit 0 (REFERENCE.md §7.3). */
function status(part: Part): number {
  for (const runtime of runtimes()) {
    let line: string;
    try {
      const state = part.state(runtime);
      line = !runtime.detected && state === 'absent' ? 'not_detected' : `${state} (${fileOf(part, runtime)})`;
    } catch (error) {
      line = `absent (${(error as Error).message})`;
    }
    process.stdout.write(`${runtime.slug}: ${line}\n`);
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
