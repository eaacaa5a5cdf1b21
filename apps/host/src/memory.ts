import { MALLOC_TRIM_MODULE } from '@paneflow/instance/allocator';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

const COLLECT_AFTER_MS = 50;
/** A collected buffer's memory is freed by V8 on a background thread, after the collection: the trim waits for it. */
const TRIM_AFTER_MS = 100;

let collect: (() => void) | null = null;
let timer: NodeJS.Timeout | null = null;
let trimHeap: (() => boolean) | null | undefined;

/**
 * Asks for a full garbage collection within 50 ms (one for all the calls of that time, so a
 * burst of closes is collected as it goes, each closed pane's memory given back before the next
 * ones' exits add to it; a collection takes about 20 ms with 32 busy panes), then for glibc's
 * heap to be trimmed. V8 collects its old generation under allocation pressure only, so the
 * memory of sessions closed while the host then goes quiet (their terminals' rows and output
 * tails) would stay held for as long as nothing else runs; collected, V8's own pages go back to
 * the system, but what glibc's malloc held for them (buffers, the tails) only at the top of its
 * heap: `malloc_trim` gives back the free pages in between too. Under jemalloc the trim finds
 * glibc's heap empty and costs nothing.
 */
export function collectSoon(): void {
  if (timer) return;
  const trim = mallocTrim();
  timer = setTimeout(() => {
    timer = null;
    if (!collect) {
      // The flag makes `gc` exist in contexts created from here on; the host's own is untouched.
      setFlagsFromString('--expose-gc');
      collect = runInNewContext('gc') as () => void;
    }
    collect();
    if (trim) setTimeout(trim, TRIM_AFTER_MS).unref();
  }, COLLECT_AFTER_MS);
  timer.unref();
}

/**
 * The trim, or null where the build could not make its module (no compiler, not glibc: the
 * host then keeps what glibc keeps; `paneflow doctor` says which allocator the host has).
 */
function mallocTrim(): (() => boolean) | null {
  if (trimHeap === undefined) {
    try {
      // A path, not a module name: the bundler leaves it to run time.
      trimHeap = require(join(__dirname, MALLOC_TRIM_MODULE)) as () => boolean;
    } catch {
      trimHeap = null;
    }
  }
  return trimHeap;
}
