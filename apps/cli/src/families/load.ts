import { join } from 'node:path';
import type { Family, Parsed } from '../usage';

export type FamilyModule = { run: Record<string, (parsed: Parsed) => Promise<number>> };

/** Each family is a bundle of its own beside the entry (tools/build-app.mjs), loaded when one of its verbs runs. */
export function loadFamily(family: Family): FamilyModule {
  return require(join(__dirname, `paneflow-${family}.cjs`)) as FamilyModule;
}
