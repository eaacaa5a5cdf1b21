/** What one hook event becomes on the wire (REFERENCE.md §7.1). No I/O: main.ts does that. */

export const HOOK_TOOLS = ['claude', 'codex'] as const;
export type HookTool = (typeof HOOK_TOOLS)[number];

/** Byte limits of the kept payload fields. */
const LIMITS: Record<string, number> = {
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

const TRUNCATED = '...[truncated]';

/** Cuts `text` to at most `limit` UTF-8 bytes, on a character boundary, marked as cut. */
export function truncate(text: string, limit: number): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= limit) return text;
  let end = limit - TRUNCATED.length;
  // Back up over continuation bytes (10xxxxxx) so no character is split.
  while (end > 0 && (bytes[end] & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString('utf8') + TRUNCATED;
}

/** Notification types that mean the agent waits for the user; the others say nothing to serve. */
const WAITING_NOTIFICATIONS = new Set(['permission_prompt', 'elicitation_dialog']);

interface EventRule {
  method: string;
  /** Fields copied from the event, each under its byte limit. */
  fields: string[];
  extra?: (input: Record<string, unknown>, env: NodeJS.ProcessEnv) => Record<string, unknown> | null;
}

const RULES: Record<string, EventRule> = {
  SessionStart: { method: 'ai.session_start', fields: ['cwd'] },
  SessionEnd: { method: 'ai.session_end', fields: ['summary', 'transcript_path'] },
  UserPromptSubmit: { method: 'ai.prompt_submit', fields: ['prompt', 'transcript_path'] },
  PreToolUse: { method: 'ai.tool_use', fields: ['tool_name'], extra: () => ({ phase: 'pre' }) },
  PostToolUse: { method: 'ai.tool_use', fields: ['tool_name'], extra: () => ({ phase: 'post' }) },
  Notification: {
    method: 'ai.notification',
    fields: ['notification_type', 'message'],
    extra: (input) => (WAITING_NOTIFICATIONS.has(String(input.notification_type)) ? {} : null),
  },
  PermissionRequest: { method: 'ai.notification', fields: ['tool_name', 'message'] },
  Stop: {
    method: 'ai.stop',
    fields: ['transcript_path'],
    extra: (input, env) => {
      const result = [input.last_assistant_message, input.last_result, input.summary].find((v) => typeof v === 'string');
      return {
        ...(typeof result === 'string' ? { last_result: truncate(result, LIMITS.last_result) } : {}),
        ...(env.PANEFLOW_AI_EVENT_SOURCE === 'interrupt' ? { source: 'interrupt' } : {}),
      };
    },
  },
  SubagentStart: { method: 'ai.subagent', fields: ['agent_id'], extra: () => ({ phase: 'start' }) },
  SubagentStop: { method: 'ai.subagent', fields: ['agent_id'], extra: () => ({ phase: 'stop' }) },
  Exit: {
    method: 'ai.exit',
    fields: [],
    extra: (_input, env) => {
      const code = Number(env.PANEFLOW_AI_EXIT_CODE);
      return { exit_code: env.PANEFLOW_AI_EXIT_CODE !== undefined && Number.isInteger(code) ? code : null };
    },
  },
};

export const HOOK_EVENTS = Object.keys(RULES);

export interface HookRequest {
  method: string;
  params: {
    tool: HookTool;
    session: string;
    surface_id?: number;
    workspace_id?: string;
    pid: number | null;
    emitted_at_ms: number;
    payload: Record<string, unknown>;
  };
}

/**
 * The one request an event posts, or null when it posts none (an unknown event, a notification
 * that is not a question to the user). `input` is the event's parsed JSON.
 */
export function hookRequest(event: string, tool: HookTool, input: Record<string, unknown>, env: NodeJS.ProcessEnv, pid: number | null, nowMs: number): HookRequest | null {
  const rule = Object.hasOwn(RULES, event) ? RULES[event] : undefined;
  if (!rule) return null;
  const extra = rule.extra ? rule.extra(input, env) : {};
  if (extra === null) return null;
  const payload: Record<string, unknown> = {};
  for (const field of ['session_id', ...rule.fields]) {
    const value = input[field];
    if (typeof value === 'string') payload[field] = truncate(value, LIMITS[field]);
  }
  Object.assign(payload, extra);
  const surfaceId = Number(env.PANEFLOW_SURFACE_ID);
  return {
    method: rule.method,
    params: {
      tool,
      session: env.PANEFLOW_SESSION_ID!,
      ...(env.PANEFLOW_SURFACE_ID && Number.isSafeInteger(surfaceId) ? { surface_id: surfaceId } : {}),
      ...(env.PANEFLOW_WORKSPACE_ID ? { workspace_id: env.PANEFLOW_WORKSPACE_ID } : {}),
      pid,
      emitted_at_ms: nowMs,
      payload,
    },
  };
}
