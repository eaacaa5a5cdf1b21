import { readAgentSession, type Catalog, type Runtime } from '@paneflow/procscan';
import type { HookMetadata, Manifest, Observation, RestartAttempt, ResumeRecord } from '@paneflow/protocol';

/** Output kept across reads, so that a failure marker split over two reads is still seen. */
const MARKER_WINDOW = 512;

/**
 * One session's way back to its agent's conversation: the resume record (the agent's own session
 * id, from its hooks or its runtime's session files, followed as it changes) and the outcome of
 * the restart that began this generation, decided from what the agent does — never assumed.
 */
export class SessionResume {
  record: ResumeRecord | null;
  restart: RestartAttempt | null;
  private window = '';
  private readonly decoder = new TextDecoder();
  /** The agent process whose hooks gave the record: its word outranks its files. */
  private hookedPid: number | null = null;

  constructor(
    private readonly catalog: Catalog,
    inherited: { record: ResumeRecord | null; restart: RestartAttempt | null },
    private readonly changed: () => void,
  ) {
    this.record = inherited.record;
    this.restart = inherited.restart;
  }

  /** A scan saw this agent in the foreground: its session files may name a new conversation. */
  observed(observation: Observation, cwd: string | null): void {
    const runtime = this.catalog.bySlug.get(observation.id);
    if (!runtime) return;
    const record = this.record?.runtime_id === runtime.slug ? this.record : null;
    // Hooks report every change of id themselves (SessionStart after /clear, resume, fork).
    if (record?.source === 'hook' && this.hookedPid === observation.pid) return;
    const found = readAgentSession(runtime, observation);
    if (found && found.id === this.restart?.provider_session_id) this.settle('resumed', null);
    if (!found) {
      // The agent is known even before its id is: `continue` can still bring it back.
      if (!record) this.update({ runtime_id: runtime.slug, provider_session_id: null, source: null, transcript_path: null, cwd });
      return;
    }
    if (record?.provider_session_id === found.id && record.transcript_path === found.transcriptPath && record.cwd === cwd) return;
    this.update({ runtime_id: runtime.slug, provider_session_id: found.id, source: 'reader', transcript_path: found.transcriptPath, cwd });
  }

  /** serve's hook metadata: the agent's own word on its session id. */
  hooked(hook: HookMetadata, runtimeId: string | null): void {
    const id = hook.provider_session_id;
    const slug = runtimeId ?? this.record?.runtime_id;
    if (!id || !slug) return;
    this.hookedPid = hook.pid;
    if (id === this.restart?.provider_session_id) this.settle('resumed', null);
    if (this.record?.provider_session_id === id && this.record.transcript_path === hook.transcript_path) return;
    this.update({ runtime_id: slug, provider_session_id: id, source: 'hook', transcript_path: hook.transcript_path, cwd: this.record?.cwd ?? null });
  }

  /** The program reported through OSC 7501: a resumed agent is back. */
  declared(): void {
    if (this.restart?.outcome === 'pending') this.settle('resumed', null);
  }

  /** What the program printed, as read: a runtime's failure marker means the resume failed. */
  output(bytes: Uint8Array): void {
    if (this.restart?.outcome !== 'pending') return;
    // A marker may span two reads, and so may a character.
    const seen = this.window + this.decoder.decode(bytes, { stream: true });
    this.window = seen.slice(-MARKER_WINDOW);
    const runtime = this.runtime();
    const marker = runtime?.resume?.failure_markers.find((m) => seen.includes(m));
    if (marker) this.settle('failed', `it printed "${marker}"`);
  }

  /** The process ended while the resume was still unconfirmed. */
  exited(code: number, signal: number | null): void {
    if (this.restart?.outcome === 'pending') this.settle('failed', signal ? `it ended by signal ${signal} first` : `it exited with code ${code} first`);
  }

  private runtime(): Runtime | undefined {
    return this.record ? this.catalog.bySlug.get(this.record.runtime_id) : undefined;
  }

  private update(record: Omit<ResumeRecord, 'updated_at_ms'>): void {
    this.record = { ...record, updated_at_ms: Date.now() };
    this.changed();
  }

  private settle(outcome: 'resumed' | 'failed', reason: string | null): void {
    if (this.restart?.outcome !== 'pending') return;
    this.restart = { ...this.restart, outcome, reason };
    this.window = '';
    this.changed();
  }
}

/** How to run a session again, as `session.restart` decides it (REFERENCE.md §1.2, §6.1). */
export interface RestartPlan {
  /** What the PTY runs. */
  program: string;
  args: string[];
  restart: RestartAttempt;
}

/**
 * The agent's conversation by id if its runtime can resume one and the id is known and valid,
 * else its latest conversation in the directory where it can continue one, else the recorded
 * launch. A resume runs through the shell the launch used, as a command pane does.
 */
export function planRestart(manifest: Manifest, catalog: Catalog, fresh: boolean): RestartPlan {
  const { launch } = manifest;
  const record = manifest.resume ?? null;
  const runtime = record ? catalog.bySlug.get(record.runtime_id) : undefined;
  const resume = runtime?.resume;
  const attempt = (mode: RestartAttempt['mode'], argv: string[], id: string | null, reason: string | null): RestartPlan => {
    const viaShell = mode !== 'launch';
    const shell = launch.args[0] === '-c' ? launch.shell : process.env.SHELL || '/bin/sh';
    return {
      program: viaShell ? shell : launch.shell,
      args: viaShell ? ['-c', argv.map(shellQuote).join(' ')] : launch.args,
      restart: { mode, provider_session_id: id, argv, outcome: mode === 'launch' ? 'launched' : 'pending', reason, at_ms: Date.now() },
    };
  };
  const relaunch = (reason: string | null) => attempt('launch', [launch.shell, ...launch.args], null, reason);
  if (fresh) return relaunch('a fresh start was asked for');
  if (!runtime) return relaunch(null);
  if (!resume) return relaunch(`${runtime.label} cannot resume a conversation`);
  const id = record?.provider_session_id;
  if (id && new RegExp(resume.session_id_pattern).test(id)) {
    return attempt('session', resume.session_argv.map((word) => word.replaceAll('{id}', id)), id, null);
  }
  const unknown = id ? `the conversation id '${id}' is not one ${runtime.label} takes` : 'no conversation id is known';
  if (resume.continue_argv) return attempt('continue', resume.continue_argv, null, unknown);
  return relaunch(unknown);
}

const shellQuote = (word: string) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`);
