import { matchName, selectorKind } from './names';

export { selectorKind };

/** The longest selector taken: a `cwd:` path up to Linux's PATH_MAX, and room for its prefix. */
export const MAX_SELECTOR_CHARS = 4096 + 16;

/** A pane as a selector sees it: `surface.list`'s entry, its `cwd` already canonical. */
export interface Selectable {
  surface_id: number;
  name: string | null;
  cwd: string;
  cmd: string;
  workspace_id: string;
}

/** Which rule of the grammar picked the panes (`surface.resolve`'s `stage`). Plain data: the CLI loads this module at start. */
export const SELECTOR_STAGES = ['surface_id', 'cmdline', 'cwd', 'exact', 'any_case', 'prefix'] as const;
export type SelectorStage = (typeof SELECTOR_STAGES)[number];

/**
 * The one selector grammar (REFERENCE.md §4.2), resolved in serve for every face: all digits are a
 * surface id in any workspace; `cmdline:` a substring of the foreground command line; `cwd:` the
 * pane's directory (the caller canonicalizes its path: only it knows its own cwd and home);
 * anything else a name, exact, then any case, then a case-insensitive prefix. Every rule but the
 * id looks only at `inScope` panes. `matches` may hold several: refusing that is the caller's.
 */
export function selectPanes<T extends Selectable>(all: T[], selector: string, inScope: (pane: T) => boolean): { matches: T[]; stage: SelectorStage } {
  const { kind, text } = selectorKind(selector);
  if (kind === 'surface_id') return { matches: all.filter((pane) => pane.surface_id === Number(text)), stage: 'surface_id' };
  const scoped = all.filter(inScope);
  if (kind === 'cmdline') return { matches: scoped.filter((pane) => pane.cmd.includes(text)), stage: 'cmdline' };
  if (kind === 'cwd') return { matches: scoped.filter((pane) => pane.cwd === text), stage: 'cwd' };
  return matchName(scoped, text) ?? { matches: [], stage: 'exact' };
}
