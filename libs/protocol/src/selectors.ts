import { matchName } from './names';

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

/** Which rule of the grammar picked the panes. */
export type SelectorStage = 'surface_id' | 'cmdline' | 'cwd' | 'exact' | 'any_case' | 'prefix';

/** How a selector is read, before any pane is looked at: its rule, and the text that rule matches. */
export function selectorKind(selector: string): { kind: 'surface_id' | 'cmdline' | 'cwd' | 'name'; text: string } {
  if (/^\d+$/.test(selector)) return { kind: 'surface_id', text: selector };
  if (selector.startsWith('cmdline:')) return { kind: 'cmdline', text: selector.slice('cmdline:'.length) };
  if (selector.startsWith('cwd:')) return { kind: 'cwd', text: selector.slice('cwd:'.length) };
  return { kind: 'name', text: selector };
}

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
