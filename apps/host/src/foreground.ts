import { isSameProcess, readProcFile } from '@paneflow/proc';
import { describeForeground, ForegroundReader, runtimeCatalog } from '@paneflow/procscan';
import type { Observation } from '@paneflow/protocol';

/** A session's foreground is read at most this often (REFERENCE.md §1.2). */
export const SCAN_INTERVAL_MS = 500;
/**
 * While an agent is identified, its process is looked at this often (one /proc read): it can exit
 * with nothing printed after it, under a shell that goes on silently, and no output would ask
 * for the scan that notices.
 */
export const AGENT_CHECK_MS = 1000;
/** The host's own command line: what node-pty's child shows until it execs the pane's program. */
const HOST_CMDLINE = readProcFile('/proc/self/cmdline');

/** What the watch needs of its session. */
export interface ScannedSession {
  readonly id: string;
  readonly pid: number | null;
  readonly title: string;
  /** Only a live session is scanned. */
  readonly lifecycle: string;
}

export interface ForegroundEvents {
  /** Each scan that found an agent, changed or not: its conversation can change while it stays the same process (/clear). */
  agentSeen(observation: Observation, cwd: string | null): void;
  /** The agent identified before has exited: its turn cannot still be running (OSC7501.md §10). */
  agentGone(): void;
  /** What runs in front changed: the agent, its command line or its directory. */
  changed(): void;
  log(message: string): void;
}

/**
 * Which agent runs in a session's foreground, and the foreground's command line and directory,
 * read from /proc (libs/procscan). Only something happening (output, a mark, a report, the start)
 * asks for a scan, so a quiet pane costs nothing.
 */
export class ForegroundWatch {
  observation: Observation | null = null;
  /** The last agent identified, kept after it is gone. */
  lastRuntimeId: string | null = null;
  cmd = '';
  cwd: string | null = null;
  scans = 0;
  private readonly reader = new ForegroundReader(runtimeCatalog());
  private lastScanAt = 0;
  private timer: NodeJS.Timeout | null = null;
  private agentCheck: NodeJS.Timeout | null = null;

  constructor(
    private readonly session: ScannedSession,
    private readonly events: ForegroundEvents,
  ) {}

  /** Whether a scan waits on a timer: once a quiet pane's start is read, none does. */
  get scanWaiting(): boolean {
    return this.timer !== null;
  }

  /** Reads the foreground again soon: at once if the last read is 500 ms old, else when it is. */
  request(): void {
    if (this.timer || this.session.lifecycle !== 'live') return;
    const wait = Math.max(0, this.lastScanAt + SCAN_INTERVAL_MS - Date.now());
    this.timer = setTimeout(() => {
      this.timer = null;
      this.scan();
    }, wait);
  }

  /** No more scans (the process exited, or the session is gone). */
  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.watchAgent(null);
  }

  /** Scans again once the agent's process is gone. */
  private watchAgent(agent: Observation | null): void {
    if (this.agentCheck) clearInterval(this.agentCheck);
    this.agentCheck = null;
    if (!agent) return;
    this.agentCheck = setInterval(() => {
      if (!isSameProcess(agent.pid, agent.pid_started_at)) this.request();
    }, AGENT_CHECK_MS);
    this.agentCheck.unref();
  }

  private scan(): void {
    const { pid } = this.session;
    if (this.session.lifecycle !== 'live' || pid === null) return;
    this.lastScanAt = Date.now();
    this.scans++;
    // Still the host's copy, before its exec: nothing of the pane's program to read yet.
    if (readProcFile(`/proc/${pid}/cmdline`) === HOST_CMDLINE) {
      this.request();
      return;
    }
    let observation: Observation | null;
    try {
      observation = this.reader.scan(pid, this.session.title);
    } catch (error) {
      this.events.log(`session ${this.session.id}: scan failed: ${(error as Error).message}`);
      return;
    }
    // A process met mid-exec is read again soon, even if the pane stays quiet.
    if (!this.reader.settled) this.request();
    const foreground = describeForeground(pid);
    if (observation) this.events.agentSeen(observation, foreground.cwd);
    const before = this.observation;
    const sameAgent = before?.id === observation?.id && before?.pid === observation?.pid && before?.pid_started_at === observation?.pid_started_at;
    if (sameAgent && foreground.cmd === this.cmd && foreground.cwd === this.cwd) return;
    if (!sameAgent && before && !isSameProcess(before.pid, before.pid_started_at)) this.events.agentGone();
    if (!sameAgent) this.watchAgent(observation);
    this.observation = observation;
    this.cmd = foreground.cmd;
    this.cwd = foreground.cwd;
    if (observation) this.lastRuntimeId = observation.id;
    this.events.changed();
  }
}
