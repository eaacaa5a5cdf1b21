// When attach draws (FramePacer): the echo of a keystroke in the turn its output arrives,
// everything else after the turn or at the output cap (or just before it), and never over a frame still being written.
import { FramePacer, OUTPUT_FRAME_MS } from '../src/attach/pacing';

/** A pacer whose frames are counted, each written once `finish` is called. */
function counted() {
  let frames = 0;
  let finish: () => void = () => undefined;
  const pacer = new FramePacer(() => {
    frames++;
    return new Promise<void>((done) => (finish = done));
  });
  pacer.running = true;
  return { pacer, frames: () => frames, finish: () => finish() };
}

const turnOver = () => new Promise<void>((done) => setImmediate(done));

test('the output that may be the echo is drawn in its own turn; without a key typed it waits for the turn to end', async () => {
  const { pacer, frames } = counted();
  pacer.request(true);
  expect(frames()).toBe(0);
  await turnOver();
  expect(frames()).toBe(1);

  const typed = counted();
  typed.pacer.echoDue = true;
  typed.pacer.request(true);
  expect(typed.frames()).toBe(1);
});

test('a change that is not output (a mode, the sidebar) waits for the turn to end even after a key', async () => {
  const { pacer, frames } = counted();
  pacer.echoDue = true;
  pacer.request();
  expect(frames()).toBe(0);
  await turnOver();
  expect(frames()).toBe(1);
});

test('no frame over one still being written: the echo then follows once the terminal took it', async () => {
  const { pacer, frames, finish } = counted();
  pacer.echoDue = true;
  pacer.request(true);
  expect(frames()).toBe(1);
  pacer.request(true);
  await turnOver();
  expect(frames()).toBe(1);
  finish();
  await turnOver();
  await turnOver();
  expect(frames()).toBe(2);
});

test('nothing is drawn before the terminal is taken over, echo or not', async () => {
  const { pacer, frames } = counted();
  pacer.running = false;
  pacer.echoDue = true;
  pacer.request(true);
  await turnOver();
  expect(frames()).toBe(0);
});

test('output soon after a frame waits for the cap; output read within the slack of the cap is drawn after its turn', async () => {
  const { pacer, frames, finish } = counted();
  pacer.request(true);
  await turnOver();
  finish();
  await turnOver();
  expect(frames()).toBe(1);
  // The host's next frame a few milliseconds early: drawn now, not after a timer of its own.
  await new Promise((done) => setTimeout(done, OUTPUT_FRAME_MS - 3));
  pacer.request(true);
  await turnOver();
  expect(frames()).toBe(2);
  finish();
  await turnOver();
  // Right after a frame: at the cap, not in this turn.
  pacer.request(true);
  await turnOver();
  expect(frames()).toBe(2);
  await new Promise((done) => setTimeout(done, OUTPUT_FRAME_MS + 5));
  expect(frames()).toBe(3);
});
