import { ErrorCode, RpcError, SESSION_SCROLLBACK_DEFAULT } from '@paneflow/protocol';
import { StreamReply, type Connection } from '@paneflow/rpc';
import type { Host } from './host';
import type { RemoteTerminal, RemoteTerminalEvents } from './terminals';

/** A saved screen's terminal, read and closed: it answers no program and tells nobody anything. */
const UNHEARD: RemoteTerminalEvents = {
  recordsChanged: () => undefined,
  signalled: () => undefined,
  marked: () => undefined,
  title: () => undefined,
  reply: () => undefined,
  parsed: () => undefined,
  failed: () => undefined,
};

/**
 * The screen of a session an earlier host ran (issue 36, item 1): lost when that host died, or
 * ended (exited, failed) before it stopped. That host took the terminal, but the last saved screen
 * (saved-screens.ts) is still what the pane showed. Until the session runs again, `session.attach` gives that screen as the checkpoint,
 * `session.output` follows nothing, and `session.read` and `session.search` read it as they read
 * a live session's terminal; when it is restarted (or removed) those streams close, and a face
 * attaches again to what runs now.
 */
export class LostScreens {
  private readonly followers = new Map<string, Set<Connection>>();
  /** Earlier hosts' sessions whose saved screen was given to a face: read from disk once per attach, not per resize. */
  private readonly given = new Set<string>();

  constructor(private readonly host: Host) {}

  /** A session this host holds only from an earlier host's manifest: that manifest, and its saved screen if it has one. */
  private lost(session: string) {
    const manifest = this.host.manifests.inherited.get(session);
    if (this.host.sessions.has(session) || !manifest) return null;
    return { manifest, saved: this.host.screens.read(session) };
  }

  /** Whether `session` is an earlier host's one a face was given the view of. */
  shown(session: string): boolean {
    return this.given.has(session) && !this.host.sessions.has(session);
  }

  /** Its saved screen; one that saved none shows an empty one of its size, so a face never waits on it. */
  attach(session: string) {
    const lost = this.lost(session);
    if (!lost) return null;
    this.given.add(session);
    const { manifest, saved } = lost;
    const screen = saved ?? { checkpoint: '', cols: manifest.launch.cols, rows: manifest.launch.rows, scrollback_rows: 0 };
    return { checkpoint: screen.checkpoint, output_offset: 0, instance: this.host.instance, generation: manifest.generation, cols: screen.cols, rows: screen.rows, scrollback_rows: screen.scrollback_rows, dropped_rows: 0 };
  }

  /** Its saved screen's lines, as `session.read` gives a live session's; null when `session` is not an earlier host's. */
  read(session: string, lines?: number, offset?: number) {
    return this.reading(session, async (terminal, outputGeneration) => ({ ...(await terminal.read(lines, offset)), output_generation: outputGeneration }));
  }

  /** `session.search` over its saved screen and scrollback; null when `session` is not an earlier host's. */
  search(session: string, pattern: string, maxMatches?: number) {
    return this.reading(session, (terminal) => terminal.search(pattern, maxMatches));
  }

  /**
   * The saved screen written into a terminal of its own on the terminals' thread — the checkpoint
   * a live session's terminal made, parsed back by the same kind of terminal — asked `ask` (which
   * waits behind the write) and closed. A session that saved no screen reads as an empty one.
   */
  private async reading<T>(session: string, ask: (terminal: RemoteTerminal, outputGeneration: number) => Promise<T>): Promise<T | null> {
    const lost = this.lost(session);
    if (!lost) return null;
    const { manifest, saved } = lost;
    const terminal = this.host.terminals.open(saved?.cols ?? manifest.launch.cols, saved?.rows ?? manifest.launch.rows, SESSION_SCROLLBACK_DEFAULT, UNHEARD);
    try {
      if (saved) terminal.write(Buffer.from(saved.checkpoint));
      return await ask(terminal, manifest.output_generation);
    } finally {
      terminal.dispose();
    }
  }

  /** Nothing follows a saved screen: a stream kept open until the session runs again. */
  output(session: string, offset: number, follow: boolean, connection: Connection) {
    if (offset !== 0) throw new RpcError(ErrorCode.InvalidParams, `offset ${offset} is past the end of the output (0): session ${session} is not running`, { reason: 'offset_ahead', field: 'offset' });
    const nothing = { chunks: [], end_offset: 0, following: follow };
    if (!follow) return nothing;
    return new StreamReply(nothing, () => {
      const set = this.followers.get(session) ?? new Set<Connection>();
      this.followers.set(session, set.add(connection));
      connection.onClose(() => set.delete(connection));
    });
  }

  /** The session runs again, or is gone: its viewers start over. */
  ended(session: string): void {
    this.given.delete(session);
    for (const connection of this.followers.get(session) ?? []) connection.close();
    this.followers.delete(session);
  }
}
