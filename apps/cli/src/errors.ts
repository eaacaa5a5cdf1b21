/** A failure with the exit code REFERENCE.md §4.1 gives it; the message goes to stderr. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
    /** serve's `data.reason`, when serve refused. */
    readonly reason?: string,
  ) {
    super(message);
  }
}

/** A usage error: exit 2, usage on stderr, nothing started. Its `exitCode` carries it out of a family's bundle (main.ts). */
export class UsageError extends Error {
  readonly exitCode = 2;
}
