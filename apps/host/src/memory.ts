import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

const COLLECT_AFTER_MS = 50;
let collect: (() => void) | null = null;
let timer: NodeJS.Timeout | null = null;

/**
 * Asks for a full garbage collection within 50 ms (one for all the calls of that time, so a
 * burst of closes is collected as it goes, each closed pane's memory given back before the next
 * ones' exits add to it; a collection takes about 20 ms with 32 busy panes). V8 collects its old generation under allocation
 * pressure only, so the memory of sessions closed while the host then goes quiet (their
 * terminals' rows and output tails) would stay held for as long as nothing else runs; collected,
 * it goes back to the system.
 */
export function collectSoon(): void {
  if (timer) return;
  timer = setTimeout(() => {
    timer = null;
    if (!collect) {
      // The flag makes `gc` exist in contexts created from here on; the host's own is untouched.
      setFlagsFromString('--expose-gc');
      collect = runInNewContext('gc') as () => void;
    }
    collect();
  }, COLLECT_AFTER_MS);
  timer.unref();
}
