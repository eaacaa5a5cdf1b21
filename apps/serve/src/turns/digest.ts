import type { DigestAgent, TurnRecord } from '@paneflow/protocol';
import type { PaneRecord } from '../model';

/**
 * One agent's part of the digest: what its turns since then did (those ended: finished, errors
 * with their last message, interrupted, files and lines, tokens), its last prompt, and what it
 * waits for now; null when nothing happened and it waits for nothing.
 */
export function digestAgent(pane: PaneRecord, turns: TurnRecord[], waiting: DigestAgent['waiting'], runtimeNow: string | null): DigestAgent | null {
  if (turns.length === 0 && !waiting) return null;
  const ended = turns.filter((t) => t.ended !== null);
  const files = new Set(ended.flatMap((t) => t.change?.files.map((f) => f.path) ?? []));
  const last = turns.at(-1);
  return {
    surface_id: pane.surface_id,
    session: pane.session,
    pane_name: pane.name,
    runtime_id: last?.runtime_id ?? runtimeNow,
    turns: turns.length,
    finished: ended.filter((t) => t.ended === 'finished').length,
    errors: ended.filter((t) => t.ended === 'error').map((t) => t.messages.at(-1)?.text ?? 'error'),
    interrupted: ended.filter((t) => t.ended === 'interrupted').length,
    files_changed: files.size,
    insertions: ended.reduce((sum, t) => sum + (t.change?.insertions ?? 0), 0),
    deletions: ended.reduce((sum, t) => sum + (t.change?.deletions ?? 0), 0),
    tokens: sumTokens(ended),
    waiting,
    last_prompt: last?.prompt?.text ?? null,
  };
}

/** The tokens of several turns together; a cost only when every turn with tokens had one. */
function sumTokens(turns: TurnRecord[]): TurnRecord['tokens'] {
  const counted = turns.flatMap((t) => (t.tokens ? [t.tokens] : []));
  if (counted.length === 0) return null;
  const priced = counted.every((t) => t.cost_usd !== null);
  return {
    input: counted.reduce((s, t) => s + t.input, 0),
    output: counted.reduce((s, t) => s + t.output, 0),
    cache_read: counted.reduce((s, t) => s + t.cache_read, 0),
    cache_creation: counted.reduce((s, t) => s + t.cache_creation, 0),
    model: counted.at(-1)!.model,
    cost_usd: priced ? counted.reduce((s, t) => s + t.cost_usd!, 0) : null,
    price_sources: [...new Set(counted.flatMap((t) => t.price_sources))],
  };
}
