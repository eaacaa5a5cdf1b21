import type { Catalog } from '@paneflow/procscan';
import { HOST_PROTOCOL_VERSION } from '@paneflow/protocol';
import type { CliState, HookMetadata, Loss, Manifest, Observation, RestartAttempt, ResumeRecord, SessionState, Stall, StatusObject, TypedInput } from '@paneflow/protocol';
import { cliState, newEntry, restoredEntry, type Agent, type Entry } from '@paneflow/reducer';
import type { Timer } from './clock';
import type { SavedEntry } from './model';

/** Everything serve knows of one host session. */
export interface View {
  session: string;
  generation: number;
  lifecycle: Manifest['lifecycle'];
  exitCode: number | null;
  process: Manifest['process'];
  title: string;
  outputGeneration: number;
  declared: Manifest['declared_status'];
  lastSignalAtMs: number | null;
  capableAtMs: number | null;
  observation: Observation | null;
  lastRuntimeId: string | null;
  foregroundCmd: string;
  foregroundCwd: string | null;
  cwd: string;
  /** The current generation's start (a restart makes a new one): older hook frames are stale. */
  generationStartedAtMs: number;
  updatedAtMs: number;
  hostBuildId: string;
  hostProtocol: number;
  agent: Agent | null;
  entry: Entry;
  /** From `ai.*` hook frames (REFERENCE.md §7.2): it never touches the reducer. */
  hook: HookMetadata;
  /** The host's resume record, the restart that began this generation, why it was lost. */
  resume: ResumeRecord | null;
  restart: RestartAttempt | null;
  lost: Loss | null;
  /** How the host started it (its manifest's): what starts it again when the host lost even its manifest. */
  launch: Manifest['launch'];
  /**
   * The host lacks the session though serve saw it (a host that died before its manifest was
   * written, in a full or read-only home): the pane stays, and a restart makes it anew from `launch`.
   */
  unsaved: boolean;
  lastActivityMs: number | null;
  attentionSinceMs: number | null;
  /** What a person last typed at a face while the program waited (the host says): who answered. */
  typed: TypedInput | null;
  /** Set while a timer will reduce again (detecting → no_signal). */
  clockTimer: Timer | null;
  /** When serve last accepted a hook frame of this session (the stall facts). */
  lastHookMs: number | null;
  /** The supervisor's stall observation (stalls.ts): the CLI state is `stalled` exactly while it is set. */
  stalled: Stall | null;
}

export function emptyHook(): HookMetadata {
  return {
    revision: 0,
    pid: null,
    last_hook: null,
    provider_session_id: null,
    transcript_path: null,
    prompt: null,
    notification_message: null,
    last_result: null,
    active_tool_name: null,
  };
}

/** The agent an observation names; the same object while the identity is the same. */
export function agentFrom(observation: Observation | null, previous: Agent | null, identifiedAtMs: number): Agent | null {
  if (!observation) return null;
  if (previous && previous.runtimeId === observation.id && previous.pid === observation.pid && previous.startedAt === observation.pid_started_at) {
    return previous;
  }
  return {
    runtimeId: observation.id,
    pid: observation.pid,
    startedAt: observation.pid_started_at,
    startedAtMs: observation.pid_started_at_ms,
    identifiedAtMs,
  };
}

export function viewFromManifest(manifest: Manifest, saved: SavedEntry | undefined): View {
  const observation = manifest.runtime.current_observation;
  return {
    session: manifest.session,
    generation: manifest.generation,
    lifecycle: manifest.lifecycle,
    exitCode: manifest.exit_code,
    process: manifest.process,
    title: manifest.title,
    outputGeneration: manifest.output_generation,
    declared: manifest.declared_status,
    lastSignalAtMs: manifest.last_status_signal_at_ms,
    capableAtMs: manifest.program_status_capable_at_ms,
    observation,
    lastRuntimeId: manifest.runtime.last_runtime_id,
    foregroundCmd: [manifest.launch.shell, ...manifest.launch.args].join(' '),
    foregroundCwd: null,
    cwd: manifest.cwd,
    // The host stamps each generation's manifest with its own start.
    generationStartedAtMs: manifest.created_at_ms,
    updatedAtMs: manifest.updated_at_ms,
    hostBuildId: manifest.host_build_id,
    hostProtocol: manifest.host_protocol_version,
    // An agent found by a rebuild has been there since it started: if it never spoke, it is no_signal.
    agent: agentFrom(observation, null, observation?.pid_started_at_ms ?? Date.now()),
    entry: saved ? restoredEntry({ status: saved.status, stateSeq: saved.state_seq, outcome: saved.outcome, unread: saved.unread }) : newEntry(),
    hook: manifest.hook ?? emptyHook(),
    resume: manifest.resume ?? null,
    restart: manifest.restart ?? null,
    lost: manifest.lifecycle === 'lost' ? (manifest.lost ?? null) : null,
    launch: manifest.launch,
    unsaved: false,
    lastActivityMs: manifest.screen_changed_at_ms,
    attentionSinceMs: null,
    typed: null,
    clockTimer: null,
    lastHookMs: null,
    stalled: null,
  };
}

/** Applies a host snapshot's state of one session. */
export function applyState(view: View, state: SessionState, now: number): void {
  // A restarted session is a new agent run: the last one's hook metadata does not describe it.
  if (state.generation !== view.generation) {
    view.hook = emptyHook();
    // Started again under the host serve follows, which speaks serve's protocol (its hello checks it).
    view.hostProtocol = HOST_PROTOCOL_VERSION;
  }
  view.generation = state.generation;
  view.generationStartedAtMs = state.generation_started_at_ms;
  view.lifecycle = state.lifecycle;
  view.exitCode = state.exit_code;
  view.title = state.title;
  view.outputGeneration = state.output_generation;
  view.declared = state.declared_status;
  view.lastSignalAtMs = state.last_status_signal_at_ms;
  view.capableAtMs = state.program_status_capable_at_ms;
  view.observation = state.observation;
  view.lastRuntimeId = state.last_runtime_id;
  view.foregroundCmd = state.foreground_cmd;
  view.foregroundCwd = state.foreground_cwd;
  view.agent = agentFrom(state.observation, view.agent, now);
  view.resume = state.resume;
  view.restart = state.restart;
  view.typed = state.typed ?? null;
  if (state.lifecycle !== 'lost') view.lost = null;
}

/** The agent's conversation id: the host's record follows both its hooks and its session files. */
export const providerSessionId = (view: View) => view.resume?.provider_session_id ?? view.hook.provider_session_id;

/** The CLI state (§3.6): `stalled` while the supervisor observes a stall (supervisor/stalls.ts). */
export function stateOf(view: View): CliState {
  return cliState(view.entry, view.declared, view.agent !== null, { stalled: view.stalled !== null });
}

const PROMPT_TITLE_CHARS = 60;

/** The prompt an agent last submitted, as a title: its first line, cut to 60 characters. */
export function promptTitle(prompt: string | null): string | null {
  const line = prompt?.split('\n').find((l) => l.trim())?.replace(/\s+/g, ' ').trim();
  if (!line) return null;
  return line.length > PROMPT_TITLE_CHARS ? `${line.slice(0, PROMPT_TITLE_CHARS - 1)}…` : line;
}

/** A pane's title: an unnamed pane takes its agent's prompt (REFERENCE.md §7.2), else the terminal's title. */
export function paneTitle(view: View, pane: { name: string | null }): string {
  return (!pane.name && promptTitle(view.hook.prompt)) || view.title;
}

/** The status object (REFERENCE.md §3.7). */
export function statusObject(
  view: View,
  pane: { surface_id: number; name: string | null },
  workspaceIndex: number,
  catalog: Catalog,
  now: number,
): Omit<StatusObject, 'revision'> {
  // A pane whose process is gone is still its agent's pane: "lost — resume" needs to know whose.
  const running = view.lifecycle === 'live' || view.lifecycle === 'starting';
  const runtimeId = view.agent?.runtimeId ?? (running ? null : (view.resume?.runtime_id ?? view.lastRuntimeId));
  const runtime = runtimeId ? catalog.bySlug.get(runtimeId) : undefined;
  const attention = view.entry.status === 'attention';
  return {
    surface_id: pane.surface_id,
    surface_name: pane.name,
    workspace: workspaceIndex,
    session: view.session,
    tool: runtime?.tool ?? null,
    runtime_id: runtime?.slug ?? null,
    pid: view.agent?.pid ?? null,
    state: stateOf(view),
    status: view.entry.status,
    reason: view.entry.reason,
    hooked: view.hook.pid !== null && view.hook.pid === view.agent?.pid,
    declared: view.declared,
    state_seq: view.entry.stateSeq,
    outcome: view.entry.outcome,
    unread: view.entry.unread,
    active_tool_name: view.hook.active_tool_name,
    message: view.declared?.message ?? (attention ? view.hook.notification_message : null),
    last_result: view.hook.last_result,
    provider_session_id: providerSessionId(view),
    lifecycle: view.lifecycle,
    restart: view.restart,
    waiting_ms: attention && view.attentionSinceMs !== null ? now - view.attentionSinceMs : null,
    idle_ms: view.lastActivityMs !== null ? Math.max(0, now - view.lastActivityMs) : null,
  };
}
