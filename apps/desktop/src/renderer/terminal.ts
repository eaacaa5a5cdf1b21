// One pane's terminal: an xterm.js mirror of the host's session. The host's terminal is the
// only one that answers a program (OSC7501.md, REFERENCE.md §1.2), so the mirror swallows every
// request it would otherwise answer; only what the user types goes back, as `user` input.
// Scrolled to the top of a full mirror, the pane reads the host's deeper history into a second
// terminal laid over the first, and lets it go when the view is back at its bottom.
import { FitAddon } from '@xterm/addon-fit';
import { SearchAddon } from '@xterm/addon-search';
import { Unicode11Addon } from '@xterm/addon-unicode11';
import { WebLinksAddon } from '@xterm/addon-web-links';
import { Terminal, type ITerminalInitOnlyOptions, type ITerminalOptions } from '@xterm/xterm';
import { resizeWithRoom } from '@paneflow/screen';
import { HISTORY_ROWS, MIRROR_SCROLLBACK } from '@paneflow/view';
import type { History, PaneflowApi } from '../api';
import { el } from './dom';

const LOOK: ITerminalOptions = {
  allowProposedApi: true,
  cursorBlink: false, // a blinking cursor is a timer that never sleeps
  fontFamily: 'DejaVu Sans Mono, Menlo, monospace',
  fontSize: 13,
  theme: { background: '#101317', foreground: '#d8dee9' },
};

/** A terminal with the widths the host's terminal and the program use (apps/host/src/terminal.ts). */
function paneTerminal(options: ITerminalOptions & ITerminalInitOnlyOptions): Terminal {
  const term = new Terminal({ ...LOOK, ...options });
  term.loadAddon(new Unicode11Addon());
  term.unicode.activeVersion = '11';
  return term;
}

function decodeBase64(data: string): Uint8Array {
  const binary = atob(data);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** Requests a terminal answers: device attributes, status and cursor reports, mode and setting queries, window reports. */
function swallowRequests(term: Terminal): void {
  const swallow = () => true;
  term.parser.registerCsiHandler({ final: 'c' }, swallow);
  term.parser.registerCsiHandler({ prefix: '>', final: 'c' }, swallow);
  term.parser.registerCsiHandler({ prefix: '=', final: 'c' }, swallow);
  term.parser.registerCsiHandler({ final: 'n' }, swallow);
  term.parser.registerCsiHandler({ prefix: '?', final: 'n' }, swallow);
  term.parser.registerCsiHandler({ intermediates: '$', final: 'p' }, swallow);
  term.parser.registerCsiHandler({ prefix: '?', intermediates: '$', final: 'p' }, swallow);
  term.parser.registerCsiHandler({ final: 't' }, swallow);
  term.parser.registerCsiHandler({ prefix: '>', final: 'q' }, swallow);
  term.parser.registerDcsHandler({ intermediates: '$', final: 'q' }, swallow);
  for (const colour of [4, 10, 11, 12]) term.parser.registerOscHandler(colour, (data) => data.includes('?'));
}

/** The host's deeper rows, shown over the live terminal while the user reads them. */
interface HistoryView {
  term: Terminal;
  search: SearchAddon;
  element: HTMLElement;
}

export class PaneTerminal {
  readonly element: HTMLElement;
  private readonly term: Terminal;
  private readonly fit = new FitAddon();
  private readonly search = new SearchAddon();
  /**
   * Shown while the user reads it; `none` not read; `all` read and nothing deeper than the mirror
   * (or the read failed): not asked again until the view has been back at the bottom.
   */
  private history: HistoryView | 'none' | 'reading' | 'all' = 'none';
  private detach: (() => void) | null = null;
  /** The size this pane's box fits, and the PTY's size now (the last face that was used set it). */
  private fitted = { cols: 0, rows: 0 };
  private size = { cols: 0, rows: 0 };
  private readonly observer: ResizeObserver;
  state: 'attaching' | 'attached' | 'lost' | 'host_replaced' = 'attaching';

  constructor(
    private readonly api: PaneflowApi,
    private readonly session: string,
    onFocus: () => void,
  ) {
    this.element = el('div', 'term-host');
    this.term = paneTerminal({ scrollback: MIRROR_SCROLLBACK });
    this.term.loadAddon(this.fit);
    this.term.loadAddon(this.search);
    this.term.loadAddon(new WebLinksAddon());
    swallowRequests(this.term);
    this.term.onScroll((top) => {
      const { baseY } = this.term.buffer.active;
      // Any scrollback: its checkpoint may have carried fewer rows than the mirror keeps.
      if (top === 0 && this.history === 'none' && baseY > 0) void this.readHistory();
      else if (top === baseY && this.history === 'all') this.history = 'none';
    });
    this.term.onData((data) => {
      // The face being used sets the size (tmux's window-size latest).
      this.claimSize();
      void this.api.input(this.session, data).catch(() => undefined);
    });
    this.term.attachCustomKeyEventHandler((event) => this.clipboardKey(event));
    this.term.open(this.element);
    this.term.textarea?.addEventListener('focus', onFocus);
    this.observer = new ResizeObserver(() => this.refit());
    this.observer.observe(this.element);
    this.detach = api.attach(session, {
      reset: (start) => {
        this.term.reset();
        this.term.resize(start.cols, start.rows);
        this.size = { cols: start.cols, rows: start.rows };
        this.term.write(start.checkpoint);
        this.refit();
      },
      data: (data) => this.term.write(decodeBase64(data)),
      resized: (size) => this.resizeTo(size),
      state: (state) => {
        this.state = state;
        this.element.dataset.state = state;
      },
    });
  }

  /**
   * Ctrl+Shift+C copies the selection of the terminal in front, Ctrl+Shift+V pastes into the
   * program (bracketed when it asked); Ctrl+Shift+W is the page's.
   */
  private clipboardKey(event: KeyboardEvent): boolean {
    if (event.type !== 'keydown' || !event.ctrlKey || !event.shiftKey) return true;
    const key = event.key.toLowerCase();
    const { term } = this.shown();
    if (key === 'c' && term.hasSelection()) {
      void navigator.clipboard?.writeText(term.getSelection());
      return false;
    }
    if (key === 'v') {
      event.preventDefault(); // the browser's own paste would deliver it a second time
      void navigator.clipboard?.readText().then((text) => this.term.paste(text));
      return false;
    }
    // Ctrl+Shift+W closes the pane (app.ts): not a key for the program.
    return key !== 'w';
  }

  /**
   * Reads the host's history and shows it from the line the live view's top stands at; it takes
   * the keyboard if this pane had it.
   */
  private async readHistory(): Promise<HistoryView | null> {
    this.history = 'reading';
    let start: History;
    try {
      start = await this.api.history(this.session);
    } catch {
      this.history = 'all';
      return null;
    }
    if (this.history !== 'reading') return null;
    const liveRows = this.term.buffer.active.baseY;
    // The host keeps nothing the mirror lacks.
    if (start.scrollback_rows <= liveRows) {
      this.history = 'all';
      return null;
    }
    const hadKeyboard = this.element.contains(document.activeElement);
    const element = el('div', 'term-history');
    const bar = el('div', 'history-bar');
    const back = el('button', undefined, 'Live output');
    back.title = 'Back to the live output (Escape, or scroll to the bottom)';
    back.onclick = () => this.closeHistory();
    bar.append(`History: ${start.scrollback_rows + start.rows} lines, as they were when read`, back);
    const host = el('div', 'term-history-screen');
    element.append(host, bar);
    this.element.append(element);
    // Never given to the program: a view of the past has no input, only Escape back to the present.
    const term = paneTerminal({ cols: start.cols, rows: start.rows, scrollback: HISTORY_ROWS, disableStdin: true });
    const search = new SearchAddon();
    term.loadAddon(search);
    swallowRequests(term);
    term.attachCustomKeyEventHandler((event) => {
      if (event.type !== 'keydown' || event.key !== 'Escape') return this.clipboardKey(event);
      this.closeHistory();
      return false;
    });
    term.open(host);
    const view: HistoryView = { term, search, element };
    this.history = view;
    await new Promise<void>((resolve) => term.write(start.checkpoint, resolve));
    if (this.history !== view) return null;
    // The live view's top is as far above the last line written (the cursor's) in both: counted
    // from the bottom instead, a host whose screen has more rows than this face's (a resize not yet
    // applied) would put the history that many lines too low.
    const live = this.term.buffer.active;
    const past = term.buffer.active;
    const aboveCursor = live.baseY + live.cursorY - live.viewportY;
    term.scrollToLine(Math.max(0, past.baseY + past.cursorY - aboveCursor));
    term.onScroll((top) => {
      if (top === term.buffer.active.baseY) this.closeHistory();
    });
    if (hadKeyboard) term.focus();
    return view;
  }

  /** Back to the live output, following it; the history is let go (read again next time). */
  private closeHistory(refocus = true): void {
    const history = this.history;
    this.history = 'none';
    if (typeof history !== 'object') return;
    history.element.remove();
    // After the frame xterm may have asked for already (disposed before it, its refresh throws);
    // a hidden page runs no frames, so a timer lets the rows go there.
    let disposed = false;
    const dispose = () => {
      if (!disposed) history.term.dispose();
      disposed = true;
    };
    requestAnimationFrame(dispose);
    setTimeout(dispose, 1000);
    this.term.scrollToBottom();
    if (refocus) this.term.focus();
  }

  /** The terminal in front: the history while it is shown, else the live mirror. */
  private shown(): { term: Terminal; search: SearchAddon } {
    return typeof this.history === 'object' ? this.history : { term: this.term, search: this.search };
  }

  /**
   * Finds `text` in the terminal in front and selects it. Not in the live mirror, it is looked for
   * in the host's deeper history, which is read for it.
   */
  async find(text: string): Promise<boolean> {
    const options = { caseSensitive: false };
    if (this.shown().search.findNext(text, options)) return true;
    if (this.history !== 'none' || this.term.buffer.active.baseY === 0) return false;
    const history = await this.readHistory();
    return history?.search.findNext(text, options) ?? false;
  }

  private refit(): void {
    if (!this.element.isConnected || this.element.clientWidth === 0) return;
    const proposed = this.fit.proposeDimensions();
    if (!proposed || !Number.isFinite(proposed.cols) || proposed.cols < 2 || proposed.rows < 1) return;
    this.fitted = { cols: proposed.cols, rows: proposed.rows };
    this.claimSize();
  }

  private claimSize(): void {
    const { cols, rows } = this.fitted;
    if (cols < 2 || (cols === this.size.cols && rows === this.size.rows)) return;
    this.resizeTo({ cols, rows });
    void this.api.resize(this.session, cols, rows).catch(() => undefined);
  }

  /** The PTY's size now, whichever face set it, with room for xterm.js's reflow (libs/screen). */
  private resizeTo(size: { cols: number; rows: number }): void {
    this.size = size;
    resizeWithRoom(this.term, size.cols, size.rows);
  }

  focus(): void {
    this.shown().term.focus();
  }

  /**
   * A key of the phone's on-screen row, typed as this terminal types it (the user's own input):
   * arrows follow the program's cursor-key mode (ESC O A in application mode, ESC [ A otherwise).
   */
  key(name: 'escape' | 'tab' | 'up' | 'down' | 'left' | 'right' | 'ctrl-c'): void {
    const arrows = { up: 'A', down: 'B', right: 'C', left: 'D' } as const;
    const data = name in arrows ? `\x1b${this.term.modes.applicationCursorKeysMode ? 'O' : '['}${arrows[name as keyof typeof arrows]}` : { escape: '\x1b', tab: '\t', 'ctrl-c': '\x03' }[name as 'escape' | 'tab' | 'ctrl-c'];
    this.term.input(data, true);
  }

  selection(): string {
    return this.shown().term.getSelection();
  }

  /** The text of the terminal in front, scrollback and screen, for tests. */
  text(): string {
    const buffer = this.shown().term.buffer.active;
    const lines: string[] = [];
    for (let i = 0; i < buffer.length; i++) lines.push(buffer.getLine(i)?.translateToString(true) ?? '');
    return lines.join('\n');
  }

  dispose(): void {
    this.closeHistory(false);
    this.detach?.();
    this.observer.disconnect();
    this.term.dispose();
  }
}
