import type { ErrorObject } from '@paneflow/protocol/errors';

/** A JSON-RPC 2.0 error answer; `id` is null when the request could not be read far enough to have one. */
export function errorResponse(id: string | number | null, code: number, message: string, data?: ErrorObject['data']) {
  return { jsonrpc: '2.0' as const, id, error: data === undefined ? { code, message } : { code, message, data } };
}

export class LineTooLongError extends Error {
  constructor(readonly limit: number) {
    super(`line over ${limit} bytes`);
  }
}

/**
 * Splits a byte stream into lines without ever holding more than `maxLineBytes` of an unfinished
 * one: a peer that never sends a newline costs bounded memory.
 */
export class LineReader {
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  constructor(private readonly maxLineBytes: number) {}

  /** Complete lines in this chunk (without their `\n`); throws LineTooLongError past the limit. */
  push(chunk: Buffer): string[] {
    const lines: string[] = [];
    let start = 0;
    for (let nl = chunk.indexOf(0x0a); nl !== -1; nl = chunk.indexOf(0x0a, start)) {
      const piece = chunk.subarray(start, nl);
      if (this.pendingBytes + piece.length > this.maxLineBytes) throw new LineTooLongError(this.maxLineBytes);
      if (this.pendingBytes > 0) {
        this.pending.push(piece);
        lines.push(Buffer.concat(this.pending).toString('utf8'));
        this.pending = [];
        this.pendingBytes = 0;
      } else {
        lines.push(piece.toString('utf8'));
      }
      start = nl + 1;
    }
    if (start < chunk.length) {
      const rest = chunk.subarray(start);
      if (this.pendingBytes + rest.length > this.maxLineBytes) throw new LineTooLongError(this.maxLineBytes);
      this.pending.push(Buffer.from(rest));
      this.pendingBytes += rest.length;
    }
    return lines;
  }

  get hasPartialLine(): boolean {
    return this.pendingBytes > 0;
  }
}
