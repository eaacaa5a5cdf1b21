// One pane's terminal: an xterm.js mirror of the host's session. The host's terminal is the
// only one that answers a program (OSC7501.md, REFERENCE.md §1.2), so the mirror swallows every
// request it would otherwise answer; only what the user types goes back, as `user` input.
import { FitAddon } from '@xterm/addon-fit';
import { SearchAddon } from '@xterm/addon-search';
import { Unicode11Addon } from '@xterm/addon-unicode11';
import { WebLinksAddon } from '@xterm/addon-web-links';
import { Terminal } from '@xterm/xterm';
import { TERMINAL_SCROLLBACK, type PaneflowApi } from '../api';

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

export class PaneTerminal {
  readonly element: HTMLElement;
  private readonly term: Terminal;
  private readonly fit = new FitAddon();
  readonly search = new SearchAddon();
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
    this.element = document.createElement('div');
    this.element.className = 'term-host';
    this.term = new Terminal({
      allowProposedApi: true,
      cursorBlink: false, // a blinking cursor is a timer that never sleeps
      scrollback: TERMINAL_SCROLLBACK,
      fontFamily: 'DejaVu Sans Mono, Menlo, monospace',
      fontSize: 13,
      theme: { background: '#101317', foreground: '#d8dee9' },
    });
    this.term.loadAddon(this.fit);
    this.term.loadAddon(this.search);
    this.term.loadAddon(new WebLinksAddon());
    // The widths the host's terminal and the program use (apps/host/src/terminal.ts).
    this.term.loadAddon(new Unicode11Addon());
    this.term.unicode.activeVersion = '11';
    swallowRequests(this.term);
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
      resized: (size) => {
        this.size = size;
        this.term.resize(size.cols, size.rows);
      },
      state: (state) => {
        this.state = state;
        this.element.dataset.state = state;
      },
    });
  }

  /** Ctrl+Shift+C copies the selection, Ctrl+Shift+V pastes (bracketed when the program asked); Ctrl+Shift+W is the page's. */
  private clipboardKey(event: KeyboardEvent): boolean {
    if (event.type !== 'keydown' || !event.ctrlKey || !event.shiftKey) return true;
    const key = event.key.toLowerCase();
    if (key === 'c' && this.term.hasSelection()) {
      void navigator.clipboard?.writeText(this.term.getSelection());
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
    this.size = { cols, rows };
    this.term.resize(cols, rows);
    void this.api.resize(this.session, cols, rows).catch(() => undefined);
  }

  focus(): void {
    this.term.focus();
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
    return this.term.getSelection();
  }

  /** The visible text, for tests and for the search box. */
  text(): string {
    const buffer = this.term.buffer.active;
    const lines: string[] = [];
    for (let i = 0; i < buffer.length; i++) lines.push(buffer.getLine(i)?.translateToString(true) ?? '');
    return lines.join('\n');
  }

  dispose(): void {
    this.detach?.();
    this.observer.disconnect();
    this.term.dispose();
  }
}
