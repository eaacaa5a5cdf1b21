import { Grid, Renderer } from '@paneflow/screen';
import { SPINNER_TICK_MS } from '@paneflow/view';
import { drawFrame, drawPane, place, redrawSidebar, type Drawn, type Scene } from './frame';
import type { Mirrors } from './mirrors';
import { FramePacer } from './pacing';
import type { OuterTerminal } from './tty';

// What each frame of `attach` redraws: the whole frame, only the sidebar (a spinner's tick) or
// only the panes whose output changed; and the spinner clock, which runs only while a spinner
// is on screen, and the slow clock of the supervisor's ages (`stalled 12m`), only while one is.
// When a frame goes out is FramePacer's.

/** How often words that age are drawn again: their finest unit shown past the first minute is the minute. */
const AGEING_TICK_MS = 10_000;

/** What the drawing reads of the client it draws for. */
export interface DrawingFace {
  /** What a frame shows, its spinners at `tick`. */
  scene(tick: number): Scene;
}

export class FrameDrawing {
  /** The frame last drawn. */
  drawn: Drawn | null = null;
  private readonly pacer = new FramePacer(() => this.draw());
  private readonly renderer = new Renderer();
  private grid: Grid;
  private tick = 0;
  private spinner: NodeJS.Timeout | null = null;
  private ages: NodeJS.Timeout | null = null;
  /** What the next frame must draw again: all of it, or only these panes' terminals. */
  private wholeFrame = true;
  private readonly dirtyPanes = new Set<number>();
  private sidebarDirty = false;

  constructor(
    private readonly tty: OuterTerminal,
    private readonly mirrors: Mirrors,
    private readonly face: DrawingFace,
  ) {
    this.grid = new Grid(tty.size.cols, tty.size.rows);
  }

  /** The terminal is taken over: frames go out, the first whole. */
  start(): void {
    this.pacer.running = true;
    this.wholeFrame = true;
  }

  /** No more frames (one still queued draws nothing), no clock. */
  stop(): void {
    this.pacer.running = false;
    if (this.spinner) clearInterval(this.spinner);
    if (this.ages) clearInterval(this.ages);
  }

  /** A key went in: the frame that shows its echo waits for nothing. */
  keyRead(): void {
    this.pacer.echoDue = true;
  }

  /** The outer terminal changed size: everything is drawn again, at the new size. */
  resized(): void {
    this.grid = new Grid(this.tty.size.cols, this.tty.size.rows);
    this.renderer.invalidate();
    this.invalidate();
  }

  /**
   * Something changed: draw it, at most once a frame (FramePacer), and never while nothing did. A
   * pane's output alone redraws that pane, a spinner tick the sidebar; anything else (the picture,
   * a mode, the size) the frame.
   */
  invalidate(pane?: number | 'sidebar'): void {
    if (pane === undefined) this.wholeFrame = true;
    else if (pane === 'sidebar') this.sidebarDirty = true;
    else this.dirtyPanes.add(pane);
    this.pacer.request(typeof pane === 'number');
  }

  private draw(): Promise<void> {
    // A frame without pane output (a spinner tick, a mode) is not the echo still to come.
    if (this.dirtyPanes.size > 0) this.pacer.echoDue = false;
    const scene = this.face.scene(this.tick);
    // A box (the keys, a question) covers panes and sidebar: a change under it redraws the frame, box on top.
    const boxed = scene.mode.kind === 'help' || scene.mode.kind === 'confirm';
    if (this.wholeFrame || !this.drawn || (boxed && (this.dirtyPanes.size > 0 || this.sidebarDirty))) {
      this.mirrors.sync(scene.picture);
      this.drawn = drawFrame(scene, this.grid, place(scene));
      this.mirrors.claim(this.drawn.layout);
      this.clock(this.drawn.spinning);
      this.ageing(this.drawn.ageing);
    } else {
      if (this.sidebarDirty) {
        redrawSidebar(scene, this.drawn);
        this.ageing(this.drawn.ageing);
      }
      // Under the turn ledger a pane's output shows nothing: the frame that closes it draws the panes.
      for (const pane of scene.mode.kind === 'turns' ? [] : (this.drawn.layout?.panes ?? [])) {
        if (!this.dirtyPanes.has(pane.surfaceId)) continue;
        const cursor = drawPane(scene, this.grid, pane);
        if (pane.surfaceId === scene.picture.active?.focus && cursor) this.drawn.cursor = cursor;
      }
    }
    this.wholeFrame = false;
    this.sidebarDirty = false;
    this.dirtyPanes.clear();
    return this.tty.write(this.renderer.render(this.grid, this.drawn.cursor));
  }

  /** The supervisor's ages: the sidebar again now and then, only while one is on screen. */
  private ageing(on: boolean): void {
    if (on && !this.ages) this.ages = setInterval(() => this.invalidate('sidebar'), AGEING_TICK_MS);
    else if (!on && this.ages) {
      clearInterval(this.ages);
      this.ages = null;
    }
  }

  /** The shared spinner clock: it runs only while a spinner is on screen. */
  private clock(spinning: boolean): void {
    if (spinning && !this.spinner) {
      this.spinner = setInterval(() => {
        this.tick++;
        this.invalidate('sidebar');
      }, SPINNER_TICK_MS);
    } else if (!spinning && this.spinner) {
      clearInterval(this.spinner);
      this.spinner = null;
    }
  }
}
