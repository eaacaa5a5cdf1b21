/**
 * Where a managed worktree lives (REFERENCE.md §5.4): `<repo>.worktrees/<branch-slug>` beside the
 * repository, the slug being the branch with every byte outside `[A-Za-z0-9._-]` made `-`.
 */
export function branchSlug(branch: string): string {
  let slug = '';
  for (const char of branch) {
    // A character of n UTF-8 bytes becomes n dashes: the slug counts bytes, as the reference does.
    const c = char.codePointAt(0)!;
    slug += /[A-Za-z0-9._-]/.test(char) ? char : '-'.repeat(c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4);
  }
  return slug;
}

/**
 * The worktree path for `branch`, or null when its slug is empty (or only dots and dashes, which
 * would name no directory of its own). `occupied` maps paths already taken, by git or by an earlier
 * pane, to their branch; a path another branch holds gets `-<8 hex of sha256(branch)>` appended.
 */
export function worktreePath(repoRoot: string, branch: string, occupied: ReadonlyMap<string, string | null>, sha256Hex: (text: string) => string): string | null {
  const slug = branchSlug(branch);
  if (/^[.-]*$/.test(slug)) return null;
  const base = `${repoRoot}.worktrees/${slug}`;
  return occupied.has(base) && occupied.get(base) !== branch ? `${base}-${sha256Hex(branch).slice(0, 8)}` : base;
}
