import { runtimeCatalog } from '@paneflow/procscan';
import type { HookMetadata, Manifest, RestartAttempt, ResumeRecord } from '@paneflow/protocol';
import { manifestOf } from '@paneflow/testing';
import { planRestart, SessionResume } from '../src/resume';

const catalog = runtimeCatalog();
const ID = '0f8e2b1c-3d4a-4b5c-9d6e-7f8091a2b3c4';

function manifest(resume: ResumeRecord | null, command = 'claude --model opus'): Manifest {
  return manifestOf({
    session: '11111111-2222-4333-8444-555555555555',
    instance: '66666666-7777-4888-9999-000000000000',
    workspace_id: 'w',
    surface_id: 1,
    name: 'lead',
    cwd: '/work/repo',
    launch: { shell: '/bin/bash', args: ['-c', command], env: {}, cols: 80, rows: 24 },
    lifecycle: 'lost',
    runtime: { current_observation: null, last_runtime_id: 'claude-code' },
    resume,
    host_protocol_version: 1,
    host_build_id: 'b',
  });
}
const record = (over: Partial<ResumeRecord> = {}): ResumeRecord => ({
  runtime_id: 'claude-code',
  provider_session_id: ID,
  source: 'hook',
  transcript_path: null,
  cwd: '/work/repo',
  updated_at_ms: 1,
  ...over,
});

describe('planRestart: the conversation by id, else the latest here, else the launch', () => {
  test('a known, valid id runs session_argv through the launch shell, quoted', () => {
    const plan = planRestart(manifest(record()), catalog, false);
    expect(plan).toMatchObject({ program: '/bin/bash', args: ['-c', `claude --resume ${ID}`] });
    expect(plan.restart).toMatchObject({ mode: 'session', provider_session_id: ID, argv: ['claude', '--resume', ID], outcome: 'pending', reason: null });
  });

  test('no id: continue_argv, saying why', () => {
    const plan = planRestart(manifest(record({ provider_session_id: null })), catalog, false);
    expect(plan.args).toEqual(['-c', 'claude --continue']);
    expect(plan.restart).toMatchObject({ mode: 'continue', outcome: 'pending', reason: 'no conversation id is known' });
  });

  test('an id the runtime would not take is never put on a command line', () => {
    const plan = planRestart(manifest(record({ provider_session_id: "x'; rm -rf ~; '" })), catalog, false);
    expect(plan.restart.mode).toBe('continue');
    expect(plan.args.join(' ')).not.toContain('rm -rf');
    expect(plan.restart.reason).toMatch(/is not one Claude Code takes/);
  });

  test('a runtime without continue_argv and no id, a runtime that cannot resume, no agent, or fresh: the recorded launch', () => {
    const codex = planRestart(manifest(record({ runtime_id: 'codex', provider_session_id: null }), 'codex'), catalog, false);
    expect(codex).toMatchObject({ program: '/bin/bash', args: ['-c', 'codex'], restart: { mode: 'launch', outcome: 'launched', reason: 'no conversation id is known' } });
    const amp = catalog.bySlug.get('amp')!;
    if (!amp.resume) {
      expect(planRestart(manifest(record({ runtime_id: 'amp' }), 'amp'), catalog, false).restart).toMatchObject({ mode: 'launch', reason: `${amp.label} cannot resume a conversation` });
    }
    expect(planRestart(manifest(null, 'make test'), catalog, false)).toMatchObject({ args: ['-c', 'make test'], restart: { mode: 'launch', reason: null } });
    expect(planRestart(manifest(record()), catalog, true)).toMatchObject({ args: ['-c', 'claude --model opus'], restart: { mode: 'launch', reason: 'a fresh start was asked for' } });
  });
});

describe('SessionResume: the record follows the agent, the outcome is what the agent does', () => {
  const hook = (id: string | null, transcript: string | null = null): HookMetadata => ({
    revision: 1,
    pid: 42,
    last_hook: null,
    provider_session_id: id,
    transcript_path: transcript,
    prompt: null,
    notification_message: null,
    last_result: null,
    active_tool_name: null,
  });
  const pending = (): RestartAttempt => ({ mode: 'session', provider_session_id: ID, argv: ['claude', '--resume', ID], outcome: 'pending', reason: null, at_ms: 1 });
  const make = (restart: RestartAttempt | null = null, inherited: ResumeRecord | null = null) => {
    let changes = 0;
    const resume = new SessionResume(catalog, { record: inherited, restart }, () => changes++);
    return { resume, changes: () => changes };
  };

  test('a hook sets the id and a new one (after /clear) replaces it; the same one again changes nothing', () => {
    const { resume, changes } = make();
    resume.hooked(hook(ID, '/t/a.jsonl'), 'claude-code');
    expect(resume.record).toMatchObject({ runtime_id: 'claude-code', provider_session_id: ID, source: 'hook', transcript_path: '/t/a.jsonl' });
    resume.hooked(hook(ID, '/t/a.jsonl'), 'claude-code');
    expect(changes()).toBe(1);
    const cleared = 'aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee';
    resume.hooked(hook(cleared, '/t/b.jsonl'), 'claude-code');
    expect(resume.record?.provider_session_id).toBe(cleared);
    expect(changes()).toBe(2);
  });

  test('a hook without an id, or for no known agent, keeps nothing', () => {
    const { resume, changes } = make();
    resume.hooked(hook(null), 'claude-code');
    resume.hooked(hook(ID), null);
    expect(resume.record).toBeNull();
    expect(changes()).toBe(0);
  });

  test('a failure marker split across two reads fails the resume, once', () => {
    const { resume, changes } = make(pending(), record());
    resume.output(Buffer.from('No conversation fo'));
    expect(resume.restart?.outcome).toBe('pending');
    resume.output(Buffer.from('und with session ID: 0f8e\r\n'));
    expect(resume.restart).toMatchObject({ outcome: 'failed', reason: 'it printed "No conversation found with session ID"' });
    resume.exited(1, null);
    expect(resume.restart?.reason).toBe('it printed "No conversation found with session ID"');
    expect(changes()).toBe(1);
  });

  test('the agent reporting again, or its id seen again, confirms the resume; later output cannot fail it', () => {
    const declared = make(pending(), record());
    declared.resume.declared();
    expect(declared.resume.restart?.outcome).toBe('resumed');
    declared.resume.output(Buffer.from('No conversation found with session ID'));
    expect(declared.resume.restart?.outcome).toBe('resumed');
    const hooked = make(pending(), record());
    hooked.resume.hooked(hook(ID), 'claude-code');
    expect(hooked.resume.restart?.outcome).toBe('resumed');
  });

  test('exiting before it is confirmed fails the resume with the exit', () => {
    const code = make(pending(), record());
    code.resume.exited(1, null);
    expect(code.resume.restart).toMatchObject({ outcome: 'failed', reason: 'it exited with code 1 first' });
    const signal = make(pending(), record());
    signal.resume.exited(0, 9);
    expect(signal.resume.restart?.reason).toBe('it ended by signal 9 first');
  });

  test('a plain relaunch has nothing to confirm', () => {
    const launched: RestartAttempt = { ...pending(), mode: 'launch', outcome: 'launched' };
    const { resume, changes } = make(launched);
    resume.output(Buffer.from('No conversation found with session ID'));
    resume.exited(1, null);
    expect(resume.restart?.outcome).toBe('launched');
    expect(changes()).toBe(0);
  });
});
