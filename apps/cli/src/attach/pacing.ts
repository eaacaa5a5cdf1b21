/** While only output changes, frames are drawn at most this often; the host gathers output as long. */
export const OUTPUT_FRAME_MS = 33;
/**
 * Output read this close to the cap is drawn now, not at it: the host's frames come one cap
 * apart, give or take their trip and the last frame's drawing, and waiting out that remainder
 * woke the client once more for each frame (a timer) than for the frames themselves.
 */
const FRAME_SLACK_MS = 8;

/**
 * When `attach` draws: only once something changed; while only output changes, about every
 * 33 ms; the echo of a keystroke at once; never while the last frame is still being written, so a
 * slow terminal gets fewer frames, never a backlog. With nothing changing there is no timer at all.
 */
export class FramePacer {
  /** Frames go out only once the terminal is taken over: one drawn before would be on the other screen. */
  running = false;
  /** A keystroke went in since the last frame: the frame that shows its echo waits for nothing. */
  echoDue = false;
  /** The next frame: soon (this turn of the event loop is over) or later (the output cap). */
  private soon: NodeJS.Immediate | null = null;
  private later: NodeJS.Timeout | null = null;
  private writing: Promise<void> | null = null;
  private lastAt = -Infinity;
  private dirty = false;

  /** `draw` composes a frame and resolves once the terminal has taken it; `now` is the clock (a test's own). */
  constructor(
    private readonly draw: () => Promise<void>,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /**
   * Something changed: a frame will show it. A pane's `output` that may be the echo awaited is
   * drawn in this very turn: the turn's end would delay it by Node's stream work for the read.
   */
  request(output = false): void {
    this.dirty = true;
    if (output && this.echoDue && this.running && !this.writing) this.fire();
    else this.schedule();
  }

  private schedule(): void {
    if (!this.running || this.soon || this.writing) return;
    // The echo goes at once even while a capped frame is waiting (a stream plus typing costs one extra frame per key).
    const wait = this.echoDue ? 0 : this.lastAt + OUTPUT_FRAME_MS - this.now();
    if (wait > FRAME_SLACK_MS) {
      this.later ??= setTimeout(() => this.fire(), wait);
      return;
    }
    if (this.later) clearTimeout(this.later);
    this.later = null;
    this.soon = setImmediate(() => this.fire());
  }

  private fire(): void {
    if (this.soon) clearImmediate(this.soon);
    this.soon = null;
    if (this.later) clearTimeout(this.later);
    this.later = null;
    if (!this.dirty || !this.running) return;
    this.dirty = false;
    // A frame drawn within the slack before its time keeps its time, so that output read without a
    // pause (a flood) still gets a frame every 33 ms, not every 25; the echo's frame is its own time.
    const now = this.now();
    this.lastAt = this.echoDue ? now : Math.max(now, this.lastAt + OUTPUT_FRAME_MS);
    this.writing = this.draw().then(() => {
      this.writing = null;
      if (this.dirty) this.schedule();
    });
  }
}
