// Every spinner of a face turns on one clock (REFERENCE.md §3.9): a 90 ms tick that runs only
// while a spinner is on screen; with reduce_motion spinners are a static mark and no clock runs.

export const SPINNER_TICK_MS = 90;
export const SPINNER_FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'] as const;
export const STATIC_MARK = '●';

/** The spinner's glyph at this tick count. */
export const spinnerFrame = (tick: number): string => SPINNER_FRAMES[tick % SPINNER_FRAMES.length];
