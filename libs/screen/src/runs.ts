import { DEFAULT_COLOR } from './style';

/** A row's style runs (`KeptRow.runs`) as its cells are read: a run ends where the style changes. */
export class RunBuilder {
  runs: number[] = [];
  private start = 0;
  private fg = DEFAULT_COLOR;
  private bg = DEFAULT_COLOR;
  private attrs = 0;
  private styled = false;

  /** Starts a row, its runs going to `runs` (emptied). */
  reset(runs: number[]): void {
    runs.length = 0;
    this.runs = runs;
    this.start = 0;
    this.fg = DEFAULT_COLOR;
    this.bg = DEFAULT_COLOR;
    this.attrs = 0;
    this.styled = false;
  }

  /** The text from code unit `at` on has this style (until another is given). */
  style(at: number, fg: number, bg: number, attrs: number): void {
    if (fg === this.fg && bg === this.bg && attrs === this.attrs) return;
    if (at > this.start) this.runs.push(at - this.start, this.fg, this.bg, this.attrs);
    this.start = at;
    this.fg = fg;
    this.bg = bg;
    this.attrs = attrs;
    this.styled = true;
  }

  /** The text ends at `at`: its last run, unless the whole row is in the default style (no runs). */
  end(at: number): void {
    if (this.styled && at > this.start) this.runs.push(at - this.start, this.fg, this.bg, this.attrs);
  }
}
