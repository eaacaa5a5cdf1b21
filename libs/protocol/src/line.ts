/**
 * The wire's framing, one JSON value per line. Kept apart from the schemas so that the smallest
 * client (paneflow-ai-hook, with its start-up budget) loads nothing else.
 */
export function encodeLine(message: unknown): string {
  return JSON.stringify(message) + '\n';
}

/** One JSON-RPC 2.0 request as a line. */
export function requestLine(id: number | string, method: string, params: object): string {
  return encodeLine({ jsonrpc: '2.0', id, method, params });
}
