import { costOf, priceTable, turnTokens, type Runtime } from '@paneflow/procscan';
import type { TurnRecord, TurnTokens } from '@paneflow/protocol';
import { constants } from 'node:fs';
import { open, stat } from 'node:fs/promises';

/**
 * The agent writes its transcript's last lines about when it declares the end: they are read this
 * long after (and the transcript's path, which the host may learn only from the turn's first
 * answer, is looked up then).
 */
export const TRANSCRIPT_SETTLE_MS = 1000;
/** At most this much of a transcript is read for one turn (its end, when the start is not marked). */
const TRANSCRIPT_READ_BYTES = 16 * 1024 * 1024;
/** The transcript's clock and serve's may differ by a little: the window is this much wider each side. */
const CLOCK_SLACK_MS = 2000;

/** How long a transcript was when a turn began: only what follows is that turn's. */
export class TranscriptMark {
  private constructor(
    readonly path: string,
    readonly size: number,
  ) {}

  static async at(path: string | null): Promise<TranscriptMark | null> {
    if (!path) return null;
    try {
      const info = await stat(path);
      return info.isFile() ? new TranscriptMark(path, info.size) : null;
    } catch {
      return null;
    }
  }
}

/**
 * A turn's tokens as its runtime's transcript says (`[tokens]` of runtime.toml names the reader),
 * priced only where the price table knows every model; null where there is no reader, no
 * transcript, or nothing in the turn's window. Read off the event loop, bounded, regular files only.
 */
export async function turnTokensOf(
  runtime: Runtime | undefined,
  path: string | null,
  mark: TranscriptMark | null,
  record: TurnRecord,
  log: (message: string) => void,
): Promise<TurnTokens | null> {
  const reader = runtime?.tokens?.reader;
  if (!reader || !path) return null;
  let text: string;
  try {
    text = await readFrom(path, mark?.path === path ? mark.size : null);
  } catch (error) {
    log(`tokens of turn ${record.session}/${record.turn}: ${(error as Error).message}`);
    return null;
  }
  const window = { startMs: record.started_at_ms - CLOCK_SLACK_MS, endMs: (record.ended_at_ms ?? Date.now()) + CLOCK_SLACK_MS };
  const tokens = turnTokens(reader, text, window);
  if (!tokens) return null;
  const cost = costOf(tokens, priceTable());
  return {
    input: tokens.input,
    output: tokens.output,
    cache_read: tokens.cache_read,
    cache_creation: tokens.cache_creation,
    model: tokens.model,
    cost_usd: cost?.usd ?? null,
    price_sources: cost?.sources ?? [],
  };
}

/**
 * The transcript from `offset` (else its last TRANSCRIPT_READ_BYTES), from its first whole line.
 * Opened without blocking (a FIFO put in its place would hold a thread of the pool until a writer
 * came), then refused unless it is a regular file.
 */
async function readFrom(path: string, offset: number | null): Promise<string> {
  const file = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const info = await file.stat();
    if (!info.isFile()) throw new Error(`${path} is not a regular file`);
    const marked = offset !== null && offset <= info.size ? offset : 0;
    const start = Math.max(marked, info.size - TRANSCRIPT_READ_BYTES);
    const buffer = Buffer.alloc(info.size - start);
    const { bytesRead } = await file.read(buffer, 0, buffer.length, start);
    const text = buffer.subarray(0, bytesRead).toString('utf8');
    // The mark is a line's end; a read that began elsewhere starts at the next line.
    return start > 0 && start !== offset ? text.slice(text.indexOf('\n') + 1) : text;
  } finally {
    await file.close();
  }
}
