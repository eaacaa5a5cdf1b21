import type { InstanceClient } from '@paneflow/client';
import { cursorModes, mouseEncoding, resizeWithRoom, writeSync, type PaneBuffer, type PaneModes } from '@paneflow/screen';
import { HISTORY_ROWS, MIRROR_SCROLLBACK } from '@paneflow/view';
import { Unicode11Addon } from '@xterm/addon-unicode11';
import { Terminal } from '@xterm/headless';

/** A headless terminal as every terminal of a session is: the widths the host's and the program's (apps/host/src/terminal.ts). */
function mirrorTerminal(cols: number, rows: number, scrollback: number): Terminal {
  // logLevel off: xterm's warnings would go to the console, which is the screen the client draws.
  const term = new Terminal({ cols, rows, scrollback, allowProposedApi: true, logLevel: 'off' });
  term.loadAddon(new Unicode11Addon());
  term.unicode.activeVersion = '11';
  return term;
}

/**
 * One pane's terminal in the client: an @xterm/headless mirror of the host's session, fed its
 * checkpoint and then its output, at the PTY's size. It never answers a program (its replies go
 * nowhere; the host's terminal is the one that answers) and keeps what the client draws from.
 * Scrolled past its top, it reads the host's deeper history into a second terminal and shows that
 * (as it was when read) until the view is back at the bottom.
 */
export class PaneMirror {
  readonly term: Terminal;
  state: 'attaching' | 'attached' | 'lost' | 'host_replaced' = 'attaching';
  /** Lines scrolled back from the bottom while the user reads the scrollback; 0 follows the output. */
  scrolledBack = 0;
  /** The host's deeper rows, shown while scrolled back once read; `none` left to read, `all` nothing more to read. */
  private history: Terminal | 'none' | 'reading' | 'all' = 'none';
  /** The whole frame is drawn again: the pane's title shows how far back the view is. */
  private readonly redraw: () => void;

  constructor(
    private readonly client: InstanceClient,
    readonly session: string,
    events: { changed(): void; resized(size: { cols: number; rows: number }): void; state(): void },
  ) {
    const onChange = () => events.changed();
    this.redraw = () => events.state();
    this.term = mirrorTerminal(80, 24, MIRROR_SCROLLBACK);
    client.attach(
      session,
      {
        // Parsed at once (writeSync), not on xterm's next timer: a keystroke's echo is drawn a turn
        // sooner. Safe here because these terminals have no asynchronous parser handlers.
        reset: (start) => {
          this.term.reset();
          this.term.resize(start.cols, start.rows);
          writeSync(this.term, start.checkpoint);
          onChange();
        },
        data: (base64) => {
          writeSync(this.term, Buffer.from(base64, 'base64'));
          onChange();
        },
        resized: ({ cols, rows }) => {
          resizeWithRoom(this.term, cols, rows);
          events.resized({ cols, rows });
        },
        state: (state) => {
          this.state = state;
          events.state();
        },
      },
      MIRROR_SCROLLBACK,
    );
  }

  /** The terminal drawn: the history while it is read and the view is scrolled back, else the live mirror. */
  private get shown(): Terminal {
    return this.scrolledBack > 0 && this.history instanceof Terminal ? this.history : this.term;
  }

  get buffer(): PaneBuffer {
    return this.shown.buffer.active;
  }

  get size(): { cols: number; rows: number } {
    return { cols: this.term.cols, rows: this.term.rows };
  }

  /** The first buffer line to draw: the viewport, or higher while scrolled back. */
  get top(): number {
    return Math.max(0, this.buffer.baseY - this.scrolledBack);
  }

  /**
   * Scrolls the view by `lines` (positive is back into the scrollback), within what is kept. Past
   * the top, the host's deeper history is read, and the move goes on in it once it is there; back
   * at the bottom, the view follows the output again and the history is let go.
   */
  scroll(lines: number): void {
    const bottom = this.buffer.baseY;
    const wanted = this.scrolledBack + lines;
    this.scrolledBack = Math.min(bottom, Math.max(0, wanted));
    if (this.scrolledBack === 0) this.follow();
    else if (wanted > bottom && this.history === 'none') void this.readHistory(wanted - bottom);
  }

  /**
   * Whether the host may keep rows above the mirror's top that are not read yet (the mirror's
   * checkpoint may have carried fewer than it keeps, so any scrollback may have more above it).
   */
  get historyUnread(): boolean {
    return this.history === 'none' && this.term.buffer.active.baseY > 0;
  }

  /**
   * Reads the host's history and shows it from the line in view (for a search that found nothing
   * in the mirror). Resolves to how far the mirror's line numbers move in it, or null when there is
   * nothing more to read or the user went back to the bottom meanwhile.
   */
  async showHistory(): Promise<number | null> {
    const liveRows = this.term.buffer.active.baseY;
    const scrolledBack = this.scrolledBack;
    // Off the bottom, or the history, once read, would be let go at once.
    this.scrolledBack = Math.max(1, scrolledBack);
    await this.readHistory(0);
    if (this.history instanceof Terminal) return this.history.buffer.active.baseY - liveRows;
    if (this.scrolledBack === 1 && scrolledBack === 0) this.scrolledBack = 0;
    return null;
  }

  /** Back at the bottom, following the output. */
  follow(): void {
    this.scrolledBack = 0;
    if (this.history instanceof Terminal) this.history.dispose();
    this.history = 'none';
  }

  private async readHistory(further: number): Promise<void> {
    this.history = 'reading';
    let start: Awaited<ReturnType<InstanceClient['history']>>;
    try {
      start = await this.client.history(this.session, HISTORY_ROWS);
    } catch {
      start = { checkpoint: '', cols: 0, rows: 0, scrollback_rows: 0 };
    }
    // The user went back to the bottom meanwhile, or the host keeps nothing the mirror lacks.
    if (this.history !== 'reading') return;
    if (start.scrollback_rows <= this.term.buffer.active.baseY) {
      this.history = 'all';
      return;
    }
    const history = mirrorTerminal(start.cols, start.rows, HISTORY_ROWS);
    writeSync(history, start.checkpoint);
    this.history = history;
    this.scroll(further);
    this.redraw();
  }

  /** The program's modes that decide how the client's input reaches it. */
  get modes(): PaneModes {
    const modes = this.term.modes;
    return {
      applicationCursorKeys: modes.applicationCursorKeysMode,
      sendFocus: modes.sendFocusMode,
      mouseTracking: modes.mouseTrackingMode,
      // ?1016 (pixels) is not offered: a cell terminal has no pixels to report.
      mouseEncoding: mouseEncoding(this.term) === 'sgr' ? 'sgr' : 'default',
    };
  }

  /** Every shown line's text, oldest first (for search in the scrollback). */
  lineText(index: number): string {
    return this.shown.buffer.active.getLine(index)?.translateToString(true) ?? '';
  }

  get lineCount(): number {
    return this.buffer.length;
  }

  dispose(): void {
    this.client.detach(this.session);
    this.follow();
    this.term.dispose();
  }
}

/** The cursor as the program set it: DECTCEM (hidden) and DECSCUSR (shape, blinking), which xterm does not publish. */
export function cursorOf(term: Terminal): { hidden: boolean; shape: 'block' | 'underline' | 'bar'; blinking: boolean } {
  const { hidden, style, blink } = cursorModes(term);
  // Unset (never set, or ESC [ 0 q) is the terminal's default: a steady block, as tmux resets it.
  return { hidden, shape: style ?? 'block', blinking: blink };
}
