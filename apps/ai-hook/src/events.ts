/** What one hook event becomes on the wire (REFERENCE.md §7.1). No I/O: main.ts does that. */
import { HOOK_EVENTS, HOOK_FIELD_LIMITS, WAITING_NOTIFICATION_TYPES, type HookEvent, type HookMethod, type HookTool } from '@paneflow/protocol/hooks';
// A type only: the hook loads none of the schemas.
import type { HookParams } from '@paneflow/protocol/public-protocol';

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

/** What an event adds to the fields it copies; null when the event posts nothing. */
type Extra = (input: Record<string, unknown>, env: NodeJS.ProcessEnv) => Record<string, unknown> | null;

const EXTRAS: Partial<Record<HookEvent, Extra>> = {
  PreToolUse: () => ({ phase: 'pre' }),
  PostToolUse: () => ({ phase: 'post' }),
  // Only a question to the user says something to serve.
  Notification: (input) => ((WAITING_NOTIFICATION_TYPES as readonly unknown[]).includes(input.notification_type) ? {} : null),
  Stop: (input, env) => {
    const result = [input.last_assistant_message, input.last_result, input.summary].find((v) => typeof v === 'string');
    return {
      ...(typeof result === 'string' ? { last_result: truncate(result, HOOK_FIELD_LIMITS.last_result) } : {}),
      ...(env.PANEFLOW_AI_EVENT_SOURCE === 'interrupt' ? { source: 'interrupt' } : {}),
    };
  },
  SubagentStart: () => ({ phase: 'start' }),
  SubagentStop: () => ({ phase: 'stop' }),
  Exit: (_input, env) => {
    const code = Number(env.PANEFLOW_AI_EXIT_CODE);
    return { exit_code: env.PANEFLOW_AI_EXIT_CODE !== undefined && Number.isInteger(code) ? code : null };
  },
};

export interface HookRequest {
  method: HookMethod;
  params: HookParams;
}

/**
 * The one request an event posts, or null when it posts none (an unknown event, a notification
 * that is not a question to the user). `input` is the event's parsed JSON.
 */
export function hookRequest(event: string, tool: HookTool, input: Record<string, unknown>, env: NodeJS.ProcessEnv, pid: number | null, nowMs: number): HookRequest | null {
  if (!Object.hasOwn(HOOK_EVENTS, event)) return null;
  const rule = HOOK_EVENTS[event as HookEvent];
  const extraFor = EXTRAS[event as HookEvent];
  const extra = extraFor ? extraFor(input, env) : {};
  if (extra === null) return null;
  const payload: Record<string, unknown> = {};
  for (const field of ['session_id', ...rule.fields]) {
    const value = input[field];
    if (typeof value === 'string') payload[field] = truncate(value, HOOK_FIELD_LIMITS[field]);
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
      // Copied field by field from HOOK_EVENTS, the lists the payload's schema is made of.
      payload: payload as HookParams['payload'],
    },
  };
}
