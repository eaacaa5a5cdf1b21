import { HOOK_EVENTS } from '@paneflow/protocol/hooks';
import { hookRequest, truncate } from '../src/events';

const ENV = { PANEFLOW_SESSION_ID: 'b6f1d6f0-2f4e-4e0a-9a53-1c1d2e3f4a5b', PANEFLOW_SURFACE_ID: '7', PANEFLOW_WORKSPACE_ID: 'ws-1' };
const at = 1_767_225_600_000;
const request = (event: string, input: Record<string, unknown>, env: Record<string, string> = {}) => hookRequest(event, 'claude', input, { ...ENV, ...env }, 4242, at);

describe('each event becomes one ai.* request with the fields REFERENCE.md §7.1 keeps', () => {
  test.each([
    ['SessionStart', { session_id: 's', cwd: '/w', model: 'x' }, 'ai.session_start', { session_id: 's', cwd: '/w' }],
    ['SessionEnd', { session_id: 's', summary: 'bye', transcript_path: '/t.jsonl', reason: 'exit' }, 'ai.session_end', { session_id: 's', summary: 'bye', transcript_path: '/t.jsonl' }],
    ['UserPromptSubmit', { session_id: 's', prompt: 'fix the tests', transcript_path: '/t' }, 'ai.prompt_submit', { session_id: 's', prompt: 'fix the tests', transcript_path: '/t' }],
    ['PreToolUse', { session_id: 's', tool_name: 'Bash', tool_input: { command: 'ls' } }, 'ai.tool_use', { session_id: 's', tool_name: 'Bash', phase: 'pre' }],
    ['PostToolUse', { session_id: 's', tool_name: 'Bash', tool_response: {} }, 'ai.tool_use', { session_id: 's', tool_name: 'Bash', phase: 'post' }],
    ['Notification', { session_id: 's', notification_type: 'permission_prompt', message: 'Allow Bash?' }, 'ai.notification', { session_id: 's', notification_type: 'permission_prompt', message: 'Allow Bash?' }],
    ['PermissionRequest', { session_id: 's', tool_name: 'Edit', message: 'Apply?' }, 'ai.notification', { session_id: 's', tool_name: 'Edit', message: 'Apply?' }],
    ['Stop', { session_id: 's', last_assistant_message: 'Tests pass.', transcript_path: '/t' }, 'ai.stop', { session_id: 's', last_result: 'Tests pass.', transcript_path: '/t' }],
    ['SubagentStart', { session_id: 's', agent_id: 'a1' }, 'ai.subagent', { session_id: 's', agent_id: 'a1', phase: 'start' }],
    ['SubagentStop', { session_id: 's', agent_id: 'a1' }, 'ai.subagent', { session_id: 's', agent_id: 'a1', phase: 'stop' }],
  ])('%s', (event, input, method, payload) => {
    expect(request(event, input)).toEqual({
      method,
      params: { tool: 'claude', session: ENV.PANEFLOW_SESSION_ID, surface_id: 7, workspace_id: 'ws-1', pid: 4242, emitted_at_ms: at, payload },
    });
  });

  test('the eleven events', () => {
    expect(Object.keys(HOOK_EVENTS).sort()).toEqual(
      ['Exit', 'Notification', 'PermissionRequest', 'PostToolUse', 'PreToolUse', 'SessionEnd', 'SessionStart', 'Stop', 'SubagentStart', 'SubagentStop', 'UserPromptSubmit'].sort(),
    );
  });

  test('a notification that is not a question to the user posts nothing', () => {
    expect(request('Notification', { notification_type: 'idle_prompt', message: 'Claude is waiting' })).toBeNull();
    expect(request('Notification', { message: 'no type' })).toBeNull();
    expect(request('Notification', { notification_type: 'elicitation_dialog', message: 'Pick one' })?.method).toBe('ai.notification');
  });

  test('Stop takes its result from last_assistant_message, else last_result, else summary', () => {
    expect(request('Stop', { last_result: 'r', summary: 's' })?.params.payload.last_result).toBe('r');
    expect(request('Stop', { summary: 's' })?.params.payload.last_result).toBe('s');
    expect(request('Stop', {})?.params.payload).toEqual({});
    expect(request('Stop', {}, { PANEFLOW_AI_EVENT_SOURCE: 'interrupt' })?.params.payload).toEqual({ source: 'interrupt' });
  });

  test('Exit carries PANEFLOW_AI_EXIT_CODE', () => {
    expect(request('Exit', {}, { PANEFLOW_AI_EXIT_CODE: '3' })?.params.payload).toEqual({ exit_code: 3 });
    expect(request('Exit', {})?.params.payload).toEqual({ exit_code: null });
  });

  test('an unknown event, or an inherited name, posts nothing', () => {
    expect(request('Bogus', {})).toBeNull();
    expect(request('toString', {})).toBeNull();
  });

  test('codex and a missing surface', () => {
    const codex = hookRequest('Stop', 'codex', {}, { PANEFLOW_SESSION_ID: 'x' }, null, at)!;
    expect(codex.params).toEqual({ tool: 'codex', session: 'x', pid: null, emitted_at_ms: at, payload: {} });
  });

  test('non-string values are left out', () => {
    expect(request('SessionStart', { session_id: 5, cwd: ['x'] })?.params.payload).toEqual({});
  });
});

describe('over-long values are cut on a UTF-8 boundary, marked, within the limit', () => {
  test('a prompt of 2000 bytes', () => {
    const prompt = request('UserPromptSubmit', { prompt: 'x'.repeat(2000) })!.params.payload.prompt as string;
    expect(Buffer.byteLength(prompt)).toBe(512);
    expect(prompt.endsWith('...[truncated]')).toBe(true);
  });

  test('multi-byte characters are never split', () => {
    for (let limit = 20; limit < 40; limit++) {
      const cut = truncate('é€😀'.repeat(20), limit);
      expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(limit);
      expect(cut).not.toContain('\ufffd');
      expect(cut.endsWith('...[truncated]')).toBe(true);
    }
    expect(truncate('short', 10)).toBe('short');
  });

  test('the provider session id is capped at 256 bytes', () => {
    expect(Buffer.byteLength(request('Stop', { session_id: 'é'.repeat(300) })!.params.payload.session_id as string)).toBeLessThanOrEqual(256);
  });
});
