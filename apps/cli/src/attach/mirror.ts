import type { InstanceClient } from '@paneflow/client';
import type { PaneBuffer, PaneModes } from '@paneflow/screen';
import { Unicode11Addon } from '@xterm/addon-unicode11';
import { Terminal } from '@xterm/headless';

/** Scrollback a mirror keeps: what a checkpoint carries at most. */
const MIRROR_SCROLLBACK = 10_000;

/**
 * One pane's terminal in the client: an @xterm/headless mirror of the host's session, fed its
 * checkpoint and then its output, at the PTY's size. It never answers a program (its replies go
 * nowhere; the host's terminal is the one that answers) and keeps what the client draws from.
 */
export class PaneMirror {
  readonly term: Terminal;
  state: 'attaching' | 'attached' | 'lost' | 'host_replaced' = 'attaching';
  /** Lines scrolled back from the bottom while the user reads the scrollback; 0 follows the output. */
  scrolledBack = 0;
  /** ?1006 is not in xterm's public modes: followed here for the mouse encoding. */
  private sgrMouse = false;

  constructor(
    private readonly client: InstanceClient,
    readonly session: string,
    events: { changed(): void; resized(size: { cols: number; rows: number }): void; state(): void },
  ) {
    const onChange = () => events.changed();
    // logLevel off: xterm's warnings would go to the console, which is the screen the client draws.
    this.term = new Terminal({ cols: 80, rows: 24, scrollback: MIRROR_SCROLLBACK, allowProposedApi: true, logLevel: 'off' });
    // The widths the host's terminal and the program use (apps/host/src/terminal.ts).
    this.term.loadAddon(new Unicode11Addon());
    this.term.unicode.activeVersion = '11';
    const track = (on: boolean) => (params: (number | number[])[]) => {
      if (params.includes(1006)) this.sgrMouse = on;
      return false; // xterm goes on with the mode itself
    };
    this.term.parser.registerCsiHandler({ prefix: '?', final: 'h' }, track(true));
    this.term.parser.registerCsiHandler({ prefix: '?', final: 'l' }, track(false));
    client.attach(session, {
      reset: (start) => {
        this.term.reset();
        this.term.resize(start.cols, start.rows);
        this.parse(start.checkpoint);
        onChange();
      },
      data: (base64) => {
        this.parse(Buffer.from(base64, 'base64'));
        onChange();
      },
      resized: ({ cols, rows }) => {
        this.term.resize(cols, rows);
        events.resized({ cols, rows });
      },
      state: (state) => {
        this.state = state;
        events.state();
      },
    });
  }

  /**
   * Parses output at once, not on xterm's next timer: a keystroke's echo is drawn a turn sooner.
   * Safe here because the mirror has no asynchronous parser handlers.
   */
  private parse(data: string | Uint8Array): void {
    (this.term as unknown as { _core: { writeSync(data: string | Uint8Array): void } })._core.writeSync(data);
  }

  get buffer(): PaneBuffer {
    return this.term.buffer.active;
  }

  get size(): { cols: number; rows: number } {
    return { cols: this.term.cols, rows: this.term.rows };
  }

  /** The first buffer line to draw: the viewport, or higher while scrolled back. */
  get top(): number {
    const buffer = this.term.buffer.active;
    return Math.max(0, buffer.baseY - this.scrolledBack);
  }

  /** Scrolls the view by `lines` (positive is back into the scrollback), within what is kept. */
  scroll(lines: number): void {
    this.scrolledBack = Math.min(this.term.buffer.active.baseY, Math.max(0, this.scrolledBack + lines));
  }

  /** The program's modes that decide how the client's input reaches it. */
  get modes(): PaneModes {
    const modes = this.term.modes;
    return {
      applicationCursorKeys: modes.applicationCursorKeysMode,
      sendFocus: modes.sendFocusMode,
      mouseTracking: modes.mouseTrackingMode,
      mouseEncoding: this.sgrMouse ? 'sgr' : 'default',
    };
  }

  /** Every kept line's text, oldest first (for search in the scrollback). */
  lineText(index: number): string {
    return this.term.buffer.active.getLine(index)?.translateToString(true) ?? '';
  }

  get lineCount(): number {
    return this.term.buffer.active.length;
  }

  dispose(): void {
    this.client.detach(this.session);
    this.term.dispose();
  }
}

/**
 * The cursor as the program set it: DECTCEM (hidden) and DECSCUSR (shape, blinking). @xterm/headless
 * 6.0.0 publishes neither: it keeps both in its core service (`term.options.cursorStyle` is the
 * embedder's default and never follows DECSCUSR), so this one function reads its private state.
 */
export function cursorOf(term: Terminal): { hidden: boolean; shape: 'block' | 'underline' | 'bar'; blinking: boolean } {
  type CoreService = { isCursorHidden?: boolean; decPrivateModes?: { cursorStyle?: string; cursorBlink?: boolean } };
  const core = (term as unknown as { _core?: { coreService?: CoreService } })._core?.coreService;
  const style = core?.decPrivateModes?.cursorStyle;
  // Unset (never set, or ESC [ 0 q) is the terminal's default: a steady block, as tmux resets it.
  return { hidden: core?.isCursorHidden === true, shape: style === 'underline' || style === 'bar' ? style : 'block', blinking: core?.decPrivateModes?.cursorBlink === true };
}
