// A seeded random walk over the resize witness's vocabulary (witness.ts): lines, lines that wrap,
// skimmed floods, resizes, an alternate screen resized while shown, and the draws after a resize,
// in random order and sizes; after each walk read, search and checkpoints hold what the witness
// holds. The seeds are fixed, so a failure names its seed and steps and runs again the same way;
// RESIZE_FUZZ_SEEDS=from-to walks others (apps/host README, *Deep scrollback*).
import type { Terminal } from '@xterm/headless';
import { draws, LONG, Pair } from './witness';

/** mulberry32: a small generator whose sequence a seed fixes. */
function seeded(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)), pick: <T>(items: readonly T[]) => items[Math.floor(next() * items.length)] };
}

/** Whether a checkpoint can lay the witness out: a row that continues one not full cannot be written (xterm's DL can leave one). */
function laysOut(term: Terminal): boolean {
  const buffer = term.buffer.active;
  for (let y = 1; y < buffer.length; y++) {
    const last = buffer.getLine(y - 1)!.getCell(term.cols - 1)!;
    if (buffer.getLine(y)!.isWrapped && last.getChars() === '' && last.getWidth() !== 0) return false;
  }
  return true;
}

/** One walk: 1,000 lines parsed, then two to six steps; `steps` says what was done, for a failure's message. */
async function walk(seed: number, steps: string[]) {
  const random = seeded(seed);
  const pair = new Pair();
  let next = 1000;
  let cols = 80;
  try {
    await pair.lines(0, 1000);
    for (let count = random.int(2, 6); count > 0; count--) {
      const step = random.pick(['lines', 'flood', 'resize', 'resize', 'draw', 'alternate'] as const);
      if (step === 'lines' || step === 'flood') {
        const n = step === 'lines' ? random.int(1, 80) : random.int(300, 3000);
        const long = random.next() < 0.4 ? LONG : '';
        steps.push(`${step} ${n}${long ? ' that wrap' : ''}`);
        await pair.lines(next, n, { long, flood: step === 'flood' });
        next += n;
      } else if (step === 'resize' || step === 'alternate') {
        if (random.next() < 0.5) cols = random.int(40, 140);
        const rows = random.int(10, 50);
        steps.push(`${step === 'alternate' ? 'alternate screen ' : ''}resized to ${cols}x${rows}`);
        if (step === 'alternate') await pair.write('\x1b[?1049h\x1b[Hfull screen');
        pair.resize(cols, rows);
        if (step === 'alternate') await pair.write('\x1b[?1049l');
      } else {
        const [name, draw] = random.pick(draws);
        steps.push(name);
        await pair.write(draw);
      }
    }
    await pair.expectAlike({ mirror: laysOut(pair.witness) });
  } finally {
    pair.dispose();
  }
}

const [from, to] = (process.env.RESIZE_FUZZ_SEEDS ?? '1-60').split('-').map(Number);
const seeds = Array.from({ length: to - from + 1 }, (_, k) => from + k);

test.each(seeds)('walk %i: every line once, as the witness has them', async (seed) => {
  const steps: string[] = [];
  try {
    await walk(seed, steps);
  } catch (error) {
    (error as Error).message = `after ${steps.join(', ')}:\n${(error as Error).message}`;
    throw error;
  }
});
