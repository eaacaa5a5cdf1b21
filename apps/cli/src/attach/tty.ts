import type { ReadStream, WriteStream } from 'node:tty';

// What the client turns on in the terminal it takes over, and turns off again on the way out:
// the alternate screen, SGR mouse reports (press, release, drag), bracketed paste and focus reports.
const ENTER = '\x1b[?1049h\x1b[?25l\x1b[?1000h\x1b[?1002h\x1b[?1006h\x1b[?2004h\x1b[?1004h';
const LEAVE = '\x1b[?1004l\x1b[?2004l\x1b[?1006l\x1b[?1002l\x1b[?1000l\x1b[0m\x1b[0 q\x1b[?25h\x1b[?1049l';

/** The terminal `paneflow attach` runs in. */
export class OuterTerminal {
  private entered = false;
  private flushing: Promise<void> | null = null;

  constructor(
    readonly input: ReadStream,
    readonly output: WriteStream,
  ) {}

  get size(): { cols: number; rows: number } {
    return { cols: this.output.columns || 80, rows: this.output.rows || 24 };
  }

  /** Takes the terminal over; a session that follows another keeps it as it is. */
  enter(): void {
    if (this.entered) return;
    this.input.setRawMode(true);
    this.input.resume();
    this.output.write(ENTER);
    this.entered = true;
  }

  /** Restores what `enter` changed; safe to call twice, and from an exit handler. */
  leave(): void {
    if (!this.entered) return;
    this.entered = false;
    try {
      this.output.write(LEAVE);
      this.input.setRawMode(false);
    } catch {
      // The terminal is gone (a closed SSH connection): there is nothing to restore.
    }
    this.input.pause();
  }

  /** Writes a frame; resolves once the terminal has taken it, so a slow one gets fewer frames, not a backlog. */
  write(bytes: string): Promise<void> {
    if (bytes.length === 0) return Promise.resolve();
    if (this.output.write(bytes)) return Promise.resolve();
    this.flushing ??= new Promise<void>((resolve) => this.output.once('drain', resolve)).finally(() => (this.flushing = null));
    return this.flushing;
  }

  /** Rings the bell and, where the terminal shows them, posts a desktop notification. */
  notify(title: string, body: string, env: NodeJS.ProcessEnv = process.env): void {
    const kind = notificationKind(env);
    const sequence = kind === 'osc9' ? `\x1b]9;${oscText(`${title}: ${body}`)}\x07` : kind === 'osc777' ? `\x1b]777;notify;${oscText(title)};${oscText(body)}\x07` : '';
    this.output.write('\x07' + sequence);
  }
}

/** Which desktop-notification sequence the terminal understands, as far as its environment says. */
export function notificationKind(env: NodeJS.ProcessEnv): 'osc9' | 'osc777' | null {
  const program = env.TERM_PROGRAM ?? '';
  if (['iTerm.app', 'WezTerm', 'ghostty'].includes(program) || env.WT_SESSION) return 'osc9';
  if (env.VTE_VERSION || (env.TERM ?? '').startsWith('foot') || (env.TERM ?? '').startsWith('rxvt')) return 'osc777';
  return null;
}

/** Text inside an OSC: no control could end it early, and no `;` could start another field. */
// eslint-disable-next-line no-control-regex -- removing control characters is the point
const oscText = (text: string) => text.replace(/[\x00-\x1f\x7f-\x9f;]/g, ' ');
