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

test('output read within the slack before the cap is drawn after its turn, and that frame keeps its time; output well before the cap waits for it', async () => {
  let clock = 1000;
  let frames = 0;
  let finish: () => void = () => undefined;
  let frameDrawn: () => void = () => undefined;
  const pacer = new FramePacer(
    () => {
      frames++;
      frameDrawn();
      return new Promise<void>((done) => (finish = done));
    },
    () => clock,
  );
  pacer.running = true;
  const drawn = async () => {
    await turnOver();
    finish();
    await turnOver();
    return frames;
  };
  pacer.request(true);
  expect(await drawn()).toBe(1);
  // The host's next frame a few milliseconds early: drawn now, not after a timer of its own.
  clock += OUTPUT_FRAME_MS - 3;
  pacer.request(true);
  expect(await drawn()).toBe(2);
  // That frame's time was 1033, not 1030: output read at 1058 is 8 ms early for 1066 and waits.
  clock = 1000 + 2 * OUTPUT_FRAME_MS - 8.5;
  pacer.request(true);
  expect(await drawn()).toBe(2);
  // At its time (the pacer's timer, on the real clock) the frame is drawn.
  clock = 1000 + 2 * OUTPUT_FRAME_MS;
  await new Promise<void>((done) => (frameDrawn = done));
  expect(await drawn()).toBe(3);
});
