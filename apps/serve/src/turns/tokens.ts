import { costOf, priceTable, turnTokens, type Runtime } from '@paneflow/procscan';
import { readRegularFileEnd } from '@paneflow/proc';
import { TRANSCRIPT_READ_BYTES, type TurnRecord, type TurnTokens } from '@paneflow/protocol';
import { stat } from 'node:fs/promises';

/**
 * The agent writes its transcript's last lines about when it declares the end: they are read this
 * long after (and the transcript's path, which the host may learn only from the turn's first
 * answer, is looked up then).
 */
export const TRANSCRIPT_SETTLE_MS = 1000;
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

/** The transcript from `offset` (else its last TRANSCRIPT_READ_BYTES), from its first whole line. */
async function readFrom(path: string, offset: number | null): Promise<string> {
  const { bytes, start } = await readRegularFileEnd(path, { maxBytes: TRANSCRIPT_READ_BYTES, follow: true, from: offset });
  const text = bytes.toString('utf8');
  // The mark is a line's end; a read that began elsewhere starts at the next line.
  return start > 0 && start !== offset ? text.slice(text.indexOf('\n') + 1) : text;
}
