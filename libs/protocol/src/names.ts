/** A pane as name matching sees it. */
export interface Named {
  surface_id: number;
  name: string | null;
}

/**
 * The panes a name selects (REFERENCE.md §4.2, §8): the exact name, else the name in any case,
 * else the names it is a case-insensitive prefix of. The first stage that finds any decides;
 * more than one match is the caller's to refuse (`stage` says which kind it was).
 */
export function matchName<T extends Named>(surfaces: T[], name: string): { matches: T[]; stage: 'exact' | 'any_case' | 'prefix' } | null {
  const lower = name.toLowerCase();
  const stages = [
    ['exact', (s: T) => s.name === name],
    ['any_case', (s: T) => s.name?.toLowerCase() === lower],
    ['prefix', (s: T) => !!s.name?.toLowerCase().startsWith(lower)],
  ] as const;
  for (const [stage, test] of stages) {
    const matches = surfaces.filter(test);
    if (matches.length > 0) return { matches, stage };
  }
  return null;
}

/** A name is a label for a person and a selector for a script: a line of a sidebar, not a document. */
export const MAX_NAME_CHARS = 128;

// C0 controls, DEL and C1 controls: a name is printed into terminals (ps, attach, titles), where
// any of them could start an escape sequence.
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * Why `name` cannot be a pane or workspace name, or null when it can. The reason names the
 * character by code point and never quotes the name: echoing it would print what is refused.
 */
export function nameFault(name: string): string | null {
  const length = [...name].length;
  if (length > MAX_NAME_CHARS) return `has ${length} characters; names may have at most ${MAX_NAME_CHARS}`;
  const at = name.search(CONTROL);
  if (at < 0) return null;
  const code = name.charCodeAt(at).toString(16).toUpperCase().padStart(4, '0');
  return `holds the control character U+${code} (at character ${[...name.slice(0, at)].length + 1}); names may not hold control characters`;
}
