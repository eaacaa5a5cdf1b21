/**
 * The hook vocabulary (REFERENCE.md §7): which hook adapters exist, which agent events become
 * which `ai.*` method, and how much of each payload field is kept. Plain data, no schemas, so
 * that paneflow-ai-hook can load it within its start-up budget.
 */

/** The hook adapters a runtime descriptor may name (`[integration] hook_adapter`), besides `none`. */
export const HOOK_TOOLS = ['claude', 'codex'] as const;
export type HookTool = (typeof HOOK_TOOLS)[number];
/** The tool of a hook run without `--tool` or `PANEFLOW_AI_TOOL`; `hooks setup` writes no `--tool` for it. */
export const DEFAULT_HOOK_TOOL: HookTool = HOOK_TOOLS[0];

export function isHookTool(value: unknown): value is HookTool {
  return (HOOK_TOOLS as readonly unknown[]).includes(value);
}

/** The `ai.*` methods of the public socket, one per kind of hook frame. */
export const HOOK_METHODS = ['ai.session_start', 'ai.session_end', 'ai.prompt_submit', 'ai.tool_use', 'ai.notification', 'ai.stop', 'ai.subagent', 'ai.exit'] as const;
export type HookMethod = (typeof HOOK_METHODS)[number];

/** Each agent event the hook handles, the method it posts, and the payload fields it copies. */
export const HOOK_EVENTS = {
  SessionStart: { method: 'ai.session_start', fields: ['cwd'] },
  SessionEnd: { method: 'ai.session_end', fields: ['summary', 'transcript_path'] },
  UserPromptSubmit: { method: 'ai.prompt_submit', fields: ['prompt', 'transcript_path'] },
  PreToolUse: { method: 'ai.tool_use', fields: ['tool_name'] },
  PostToolUse: { method: 'ai.tool_use', fields: ['tool_name'] },
  Notification: { method: 'ai.notification', fields: ['notification_type', 'message'] },
  PermissionRequest: { method: 'ai.notification', fields: ['tool_name', 'message'] },
  Stop: { method: 'ai.stop', fields: ['transcript_path'] },
  SubagentStart: { method: 'ai.subagent', fields: ['agent_id'] },
  SubagentStop: { method: 'ai.subagent', fields: ['agent_id'] },
  Exit: { method: 'ai.exit', fields: [] },
} as const satisfies Record<string, { method: HookMethod; fields: readonly string[] }>;
export type HookEvent = keyof typeof HOOK_EVENTS;

/** The events `hooks setup` installs in Claude Code's and Codex's configs (§7.3). */
export const INSTALLED_HOOK_EVENTS = [
  'SessionStart',
  'SessionEnd',
  'UserPromptSubmit',
  'PreToolUse',
  'PostToolUse',
  'Notification',
  'Stop',
  'SubagentStart',
  'SubagentStop',
] as const satisfies readonly HookEvent[];

/** Byte limits of the kept payload fields (§7.1); a longer value is cut and marked. */
export const HOOK_FIELD_LIMITS: Record<string, number> = {
  session_id: 256,
  cwd: 2048,
  summary: 4096,
  transcript_path: 2048,
  prompt: 512,
  tool_name: 128,
  notification_type: 64,
  message: 4096,
  last_result: 4096,
  agent_id: 160,
};

/** Notification types that mean the agent waits for the user; others are dropped unsent. */
export const WAITING_NOTIFICATION_TYPES = ['permission_prompt', 'elicitation_dialog'] as const;
