/** One thing wrong with a spec: where (a field path, a pane or step prefix, a line if known) and what. */
export interface Problem {
  /** `pane 2: `, `step impl: `, or empty for a top-level field. */
  prefix: string;
  /** The field path, dotted (`env.PORT`, `ready.pattern`); empty when the whole pane or step is meant. */
  field: string;
  message: string;
  line?: number;
}

/** A spec that fails to parse or validate: every problem, each line naming the file. */
export class SpecError extends Error {
  constructor(
    readonly file: string,
    readonly problems: Problem[],
  ) {
    super(problems.map((p) => formatProblem(file, p)).join('\n'));
    this.name = 'SpecError';
  }
}

export function formatProblem(file: string, problem: Problem): string {
  const where = problem.line ? `${file}:${problem.line}` : file;
  const field = problem.field ? `${problem.field}: ` : '';
  return `${where}: ${problem.prefix}${field}${problem.message}`;
}

/**
 * Finds the line of a field in TOML text, where it can: the `index`-th `[[table]]` header, then
 * the first `key =` after it (before the next header). Good enough to point a person at it.
 */
export function locate(text: string, table: string | null, index: number, key?: string): number | undefined {
  const lines = text.split('\n');
  let start = 0;
  if (table) {
    let seen = -1;
    start = -1;
    for (let i = 0; i < lines.length; i++) {
      if (lines[i].trim() === `[[${table}]]` && ++seen === index) {
        start = i;
        break;
      }
    }
    if (start === -1) return undefined;
  }
  if (!key) return start + 1;
  const keyPattern = new RegExp(`^\\s*["']?${key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}["']?\\s*=`);
  for (let i = table ? start + 1 : 0; i < lines.length; i++) {
    if (table && /^\s*\[/.test(lines[i])) break;
    if (!table && /^\s*\[/.test(lines[i])) break;
    if (keyPattern.test(lines[i])) return i + 1;
  }
  return table ? start + 1 : undefined;
}
