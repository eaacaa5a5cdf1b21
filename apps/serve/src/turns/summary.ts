import { TURN_FILES_KEPT, type FileChange, type TurnChange } from '@paneflow/protocol';
import { splitNul } from './git';

export type ChangeSummary = Pick<TurnChange, 'files_changed' | 'added' | 'removed' | 'insertions' | 'deletions' | 'binary' | 'files'>;

const STATUSES: Record<string, FileChange['status']> = { A: 'added', M: 'modified', D: 'deleted', R: 'renamed', T: 'type_changed' };

/**
 * `diff-tree -z --raw --numstat`: every raw record (`:<modes> <oids> <status>`, then one path, or
 * two for a rename), then one numstat record per file in the same order (`<ins>\t<del>\t<path>`,
 * or `<ins>\t<del>\t` and both paths for a rename; `-\t-` for a binary file).
 */
export function parseSummary(out: Buffer): ChangeSummary {
  const fields = splitNul(out).map((field) => field.toString('utf8'));
  const entries: { status: FileChange['status']; path: string; from: string | null }[] = [];
  let i = 0;
  while (i < fields.length && fields[i].startsWith(':')) {
    const code = fields[i].slice(fields[i].lastIndexOf(' ') + 1, fields[i].lastIndexOf(' ') + 2);
    const status = STATUSES[code] ?? 'modified';
    if (status === 'renamed') {
      entries.push({ status, from: fields[i + 1], path: fields[i + 2] });
      i += 3;
    } else {
      entries.push({ status, from: null, path: fields[i + 1] });
      i += 2;
    }
  }
  const summary: ChangeSummary = { files_changed: entries.length, added: 0, removed: 0, insertions: 0, deletions: 0, binary: 0, files: [] };
  for (const entry of entries) {
    // `<ins>\t<del>\t<path>`, or for a rename `<ins>\t<del>\t` and both paths as fields of their own;
    // told apart by the raw entry, since a path may itself begin with a tab.
    const [insertions, deletions] = fields[i].split('\t', 2);
    i += entry.status === 'renamed' ? 3 : 1;
    const binary = insertions === '-';
    const change: FileChange = { ...entry, insertions: binary ? null : Number(insertions), deletions: binary ? null : Number(deletions), binary };
    if (entry.status === 'added') summary.added++;
    if (entry.status === 'deleted') summary.removed++;
    if (binary) summary.binary++;
    else {
      summary.insertions += change.insertions!;
      summary.deletions += change.deletions!;
    }
    if (summary.files.length < TURN_FILES_KEPT) summary.files.push(change);
  }
  return summary;
}
