/** What is wrong with the data in runtimes/ (descriptors, the price table), every problem with its file. */
export class CatalogError extends Error {
  constructor(readonly problems: string[]) {
    super(`runtime catalog is invalid:\n${problems.map((p) => `  ${p}`).join('\n')}`);
    this.name = 'CatalogError';
  }
}

interface SchemaError {
  keyword: string;
  instancePath: string;
  message: string;
  params: Record<string, unknown>;
}

/** A compiled typebox schema's errors for `data`, each as `where: what` (a dotted path, or `(top level)`). */
export function schemaProblems(check: { Errors(data: unknown): unknown }, data: unknown): string[] {
  const problems: string[] = [];
  for (const error of check.Errors(data) as SchemaError[]) {
    // A closed object also reports each unknown key as a failed `false` schema: said once, below.
    if (error.keyword === 'boolean') continue;
    const at = error.instancePath.replace(/^\//, '').replaceAll('/', '.') || '(top level)';
    const detail =
      error.keyword === 'additionalProperties'
        ? `unknown key '${(error.params.additionalProperties as string[]).join("', '")}'`
        : error.keyword === 'required'
          ? `missing key '${(error.params.requiredProperties as string[]).join("', '")}'`
          : error.message;
    problems.push(`${at}: ${detail}`);
  }
  return problems;
}
