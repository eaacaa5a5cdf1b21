import { join } from 'node:path';
import { requireBundle } from '../code-cache';
import type { Family, Parsed } from '../usage';

export type FamilyModule = { run: Record<string, (parsed: Parsed) => Promise<number>> };

/** Each family is a bundle of its own beside the entry (tools/build-app.mjs), loaded when one of its verbs runs, from V8's kept code. */
export function loadFamily(family: Family): FamilyModule {
  return requireBundle(join(__dirname, `paneflow-${family}.cjs`)) as FamilyModule;
}
