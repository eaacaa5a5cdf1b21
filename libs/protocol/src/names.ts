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
