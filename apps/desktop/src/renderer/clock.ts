// One animation clock for every spinner of the page (REFERENCE.md §3.9, @paneflow/view's spinner).
import { SPINNER_TICK_MS, spinnerFrame, STATIC_MARK } from '@paneflow/view';

export class SpinnerClock {
  private readonly spinners = new Set<HTMLElement>();
  private timer: ReturnType<typeof setInterval> | null = null;
  private frame = 0;
  reduceMotion = false;

  /** Shows `element` as a spinner until `remove`. */
  add(element: HTMLElement): void {
    this.spinners.add(element);
    element.textContent = this.reduceMotion ? STATIC_MARK : spinnerFrame(this.frame);
    this.update();
  }

  remove(element: HTMLElement): void {
    this.spinners.delete(element);
    this.update();
  }

  setReduceMotion(on: boolean): void {
    this.reduceMotion = on;
    for (const element of this.spinners) element.textContent = on ? STATIC_MARK : spinnerFrame(this.frame);
    this.update();
  }

  get running(): boolean {
    return this.timer !== null;
  }

  private update(): void {
    for (const element of this.spinners) if (!element.isConnected) this.spinners.delete(element);
    const wanted = this.spinners.size > 0 && !this.reduceMotion;
    if (wanted && !this.timer) this.timer = setInterval(() => this.tick(), SPINNER_TICK_MS);
    if (!wanted && this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }

  private tick(): void {
    this.frame++;
    for (const element of this.spinners) element.textContent = spinnerFrame(this.frame);
    this.update();
  }
}
