// `paneflow`, the executable: the verb tree (main.ts, bundled as paneflow-main.cjs) run from the
// code V8 kept of it (code-cache.ts). Kept this small, since this one file is compiled every call.
import { join } from 'node:path';
import { requireBundle } from './code-cache';

requireBundle(join(__dirname, 'paneflow-main.cjs'));
