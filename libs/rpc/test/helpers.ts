import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scaled } from '@paneflow/test-time';

/** A private temp directory, removed by the returned cleanup. */
export function tempDir(prefix = 'pf-rpc-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * A raw client: writes bytes, collects the lines the server sends, and tells when it closed.
 * For what a well-behaved client would never send.
 */
export function rawClient(path: string, options: { allowHalfOpen?: boolean } = {}) {
  const socket = createConnection({ path, allowHalfOpen: options.allowHalfOpen ?? false });
  const lines: string[] = [];
  let buffer = '';
  const waiters: Array<() => void> = [];
  const notify = () => waiters.splice(0).forEach((w) => w());
  let closed = false;
  socket.on('data', (chunk) => {
    buffer += chunk.toString();
    let nl;
    while ((nl = buffer.indexOf('\n')) !== -1) {
      lines.push(buffer.slice(0, nl));
      buffer = buffer.slice(nl + 1);
    }
    notify();
  });
  socket.on('error', () => undefined);
  socket.on('close', () => {
    closed = true;
    notify();
  });
  const until = (test: () => boolean, timeoutMs = scaled(10_000)) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('timed out waiting')), timeoutMs);
      const check = () => {
        if (test()) {
          clearTimeout(timer);
          resolve();
        } else waiters.push(check);
      };
      check();
    });
  const connected = new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('close', () => reject(new Error('closed before it connected')));
  });
  connected.catch(() => undefined);
  return {
    socket,
    /** Resolves once the connection is made: bytes written before it may never leave. */
    connected: () => connected,
    write: (data: string | Buffer) => socket.write(data),
    /** Writes once connected; resolves when the kernel has taken the bytes (the write's callback). */
    send: async (data: string | Buffer) => {
      await connected;
      await new Promise<void>((resolve, reject) => socket.write(data, (error) => (error ? reject(error) : resolve())));
    },
    /** The first line the server sent that `test` accepts, parsed. */
    lineWhere: async (test: (frame: Record<string, unknown>) => boolean, timeoutMs = scaled(10_000)) => {
      const find = () => lines.map((l) => JSON.parse(l) as Record<string, unknown>).find(test);
      await until(() => find() !== undefined || closed, timeoutMs);
      const found = find();
      if (!found) throw new Error(`the connection closed without that line; it sent ${JSON.stringify(lines)}`);
      return found;
    },
    /** The nth line the server sent, parsed. */
    line: async (n: number) => {
      await until(() => lines.length > n);
      return JSON.parse(lines[n]);
    },
    closedSoon: () => until(() => closed),
    get closed() {
      return closed;
    },
    get lineCount() {
      return lines.length;
    },
    destroy: () => socket.destroy(),
  };
}

/** Resolves once `test` holds, checking on every event-loop turn; rejects after `timeoutMs`. */
export async function waitFor(test: () => boolean, timeoutMs = scaled(10_000)): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!test()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
