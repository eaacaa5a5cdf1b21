import TOML from '@ltd/j-toml';
import type { TokenCounts } from '@paneflow/protocol/turns';
import Type, { type Static } from 'typebox';
import { Compile } from 'typebox/compile';
import { CatalogError, schemaProblems } from './problems';

/** The transcript formats a runtime's `[tokens] reader` may name (runtime.toml). */
export const TOKEN_READERS = ['claude_transcript', 'codex_rollout'] as const;
export type TokenReader = (typeof TOKEN_READERS)[number];

/** The tokens a transcript says a turn used (counted as @paneflow/protocol's `TokenCounts`: `input` is the uncached part, `cache_creation` what was written to the cache). */
export interface TranscriptTokens extends TokenCounts {
  /** The model that produced most output tokens in the window, or null. */
  model: string | null;
  /** Per model, so a price table can cost each. */
  by_model: Record<string, TokenCounts>;
}

/** What one model response used, and by which model (null when the transcript does not say). */
interface Usage extends TokenCounts {
  model: string | null;
}

type Json = Record<string, unknown>;
const asObject = (value: unknown): Json | null => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : null);
/** A count as the record keeps it: a whole number from 0 (a line with any other is skipped, never half-read). */
const countOf = (value: unknown): number | null => (value === undefined || value === null ? 0 : typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : null);
/** Model ids are short; a longer string is not one. */
const MODEL_MAX_CHARS = 200;
const stringOf = (value: unknown): string | null => (typeof value === 'string' && value !== '' && value.length <= MODEL_MAX_CHARS ? value : null);

/** The JSON objects of a JSONL text with their `timestamp` (ms, null when it has none); other lines are skipped. */
function linesOf(text: string): Array<{ line: Json; at: number | null }> {
  const lines: Array<{ line: Json; at: number | null }> = [];
  for (const raw of text.split('\n')) {
    if (raw.trim() === '') continue;
    let line: Json | null;
    try {
      line = asObject(JSON.parse(raw));
    } catch {
      continue;
    }
    if (!line) continue;
    const at = typeof line.timestamp === 'string' ? Date.parse(line.timestamp) : NaN;
    lines.push({ line, at: Number.isNaN(at) ? null : at });
  }
  return lines;
}

type InWindow = (at: number) => boolean;

/**
 * Claude Code writes one `assistant` line per content block of an API message, each with the
 * message's id and usage (the same final usage in 2.1.332; as streamed so far in older versions):
 * a message counts once, with its last line's usage, when that line falls in the window.
 */
function claudeResponses(text: string, inWindow: InWindow): Usage[] {
  const byMessage = new Map<string, { at: number; usage: Usage }>();
  let unnamed = 0;
  for (const { line, at } of linesOf(text)) {
    if (line.type !== 'assistant' || at === null) continue;
    const message = asObject(line.message);
    const usage = asObject(message?.usage);
    if (!message || !usage) continue;
    const counts = [usage.input_tokens, usage.output_tokens, usage.cache_read_input_tokens, usage.cache_creation_input_tokens].map(countOf);
    if (counts.includes(null)) continue;
    const [input, output, cache_read, cache_creation] = counts as number[];
    const id = stringOf(message.id) ?? `\0${unnamed++}`;
    byMessage.delete(id);
    byMessage.set(id, { at, usage: { input, output, cache_read, cache_creation, model: stringOf(message.model) } });
  }
  return [...byMessage.values()].filter(({ at }) => inWindow(at)).map(({ usage }) => usage);
}

/** Codex's TokenUsage, as its rollout writes it: `input_tokens` includes the cached and cache-write tokens. */
const CODEX_FIELDS = ['input_tokens', 'cached_input_tokens', 'cache_write_input_tokens', 'output_tokens'] as const;
type CodexUsage = Record<(typeof CODEX_FIELDS)[number], number>;

function codexUsage(value: unknown): CodexUsage | null {
  const object = asObject(value);
  if (!object) return null;
  const usage = {} as CodexUsage;
  for (const field of CODEX_FIELDS) {
    const count = countOf(object[field]);
    if (count === null) return null;
    usage[field] = count;
  }
  return usage;
}

const codexCounts = (usage: CodexUsage, model: string | null): Usage => ({
  input: Math.max(0, usage.input_tokens - usage.cached_input_tokens - usage.cache_write_input_tokens),
  output: usage.output_tokens,
  cache_read: usage.cached_input_tokens,
  cache_creation: usage.cache_write_input_tokens,
  model,
});

/**
 * Codex's rollout. Each response's usage is a `token_usage_record` with its `response_id` (0.171
 * writes them; counted once per id, like Claude's messages), used when the window has any. Else
 * the `token_count` events: their `total_token_usage` is cumulative, and Codex re-sends the event
 * with unchanged totals (rate-limit updates) or an estimated `last_token_usage`, so each event
 * counts the growth of the total since the one before; the first in the text, with nothing
 * before it, counts its `last_token_usage`. A total that shrinks started again from zero. The
 * model is that of the latest `turn_context`.
 */
function codexResponses(text: string, inWindow: InWindow): Usage[] {
  const records = new Map<string, { at: number; usage: Usage }>();
  const fromTotals: Usage[] = [];
  let model: string | null = null;
  let previous: CodexUsage | null = null;
  let unnamed = 0;
  for (const { line, at } of linesOf(text)) {
    const payload = asObject(line.payload);
    if (!payload) continue;
    if (line.type === 'turn_context') {
      model = stringOf(payload.model) ?? model;
      continue;
    }
    if (at === null) continue;
    if (line.type === 'token_usage_record') {
      const usage = codexUsage(payload.usage);
      if (!usage) continue;
      const id = stringOf(payload.response_id) ?? `\0${unnamed++}`;
      records.delete(id);
      records.set(id, { at, usage: codexCounts(usage, model) });
    } else if (line.type === 'event_msg' && payload.type === 'token_count') {
      const info = asObject(payload.info);
      const total = codexUsage(info?.total_token_usage);
      if (!total) continue;
      const before: CodexUsage | null = previous;
      const grown =
        before === null
          ? (codexUsage(info?.last_token_usage) ?? total)
          : CODEX_FIELDS.some((field) => total[field] < before[field])
            ? total
            : (Object.fromEntries(CODEX_FIELDS.map((field) => [field, total[field] - before[field]])) as CodexUsage);
      previous = total;
      if (inWindow(at)) fromTotals.push(codexCounts(grown, model));
    }
  }
  const recorded = [...records.values()].filter(({ at }) => inWindow(at));
  return recorded.length > 0 ? recorded.map(({ usage }) => usage) : fromTotals;
}

const FIELDS = ['input', 'output', 'cache_read', 'cache_creation'] as const;
const zero = (): TokenCounts => ({ input: 0, output: 0, cache_read: 0, cache_creation: 0 });
const sumOf = (counts: TokenCounts) => counts.input + counts.output + counts.cache_read + counts.cache_creation;

/**
 * The tokens a turn used: the transcript's entries timestamped within [startMs, endMs] (inclusive,
 * ms since epoch). null when none fall in the window or the text is not of that format. Malformed
 * lines are skipped, never thrown.
 */
export function turnTokens(reader: TokenReader, jsonlText: string, window: { startMs: number; endMs: number }): TranscriptTokens | null {
  const inWindow: InWindow = (at) => at >= window.startMs && at <= window.endMs;
  const responses = reader === 'claude_transcript' ? claudeResponses(jsonlText, inWindow) : codexResponses(jsonlText, inWindow);
  if (responses.length === 0) return null;
  const total = zero();
  const byModel = new Map<string, TokenCounts>();
  for (const response of responses) {
    for (const field of FIELDS) total[field] += response[field];
    // A response without tokens (Claude Code's `<synthetic>` messages) names no model worth pricing.
    if (response.model === null || sumOf(response) === 0) continue;
    const counts = byModel.get(response.model) ?? zero();
    for (const field of FIELDS) counts[field] += response[field];
    byModel.set(response.model, counts);
  }
  let model: string | null = null;
  for (const [name, counts] of byModel) if (model === null || counts.output > byModel.get(model)!.output) model = name;
  return { ...total, model, by_model: Object.fromEntries(byModel) };
}

/** `runtimes/prices.toml`: USD per million tokens, each entry with where and when the figures were read. */
const PriceTable = Type.Object(
  {
    price: Type.Array(
      Type.Object(
        {
          model: Type.String({ minLength: 1 }),
          input: Type.Number({ minimum: 0 }),
          output: Type.Number({ minimum: 0 }),
          cache_read: Type.Number({ minimum: 0 }),
          cache_write: Type.Number({ minimum: 0 }),
          source: Type.String({ pattern: '^https://' }),
          as_of: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' }),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

/** One model's prices, USD per million tokens; `cache_write` is the vendor's default retention (Anthropic 5 minutes, OpenAI 30). */
export interface PriceEntry {
  /** A model id, which also prices its dated snapshots. */
  model: string;
  input: number;
  output: number;
  cache_read: number;
  cache_write: number;
  /** The vendor's page the figures were read on, and the date they were read. */
  source: string;
  as_of: string;
}

const checkPrices = Compile(PriceTable);

/** Parses and checks the price table; every problem is reported together (CatalogError), as for the descriptors. */
export function parsePrices(tomlText: string): PriceEntry[] {
  const file = 'runtimes/prices.toml';
  let data: unknown;
  try {
    data = JSON.parse(JSON.stringify(TOML.parse(tomlText, { bigint: false })));
  } catch (error) {
    throw new CatalogError([`${file}: ${(error as Error).message}`]);
  }
  if (!checkPrices.Check(data)) throw new CatalogError(schemaProblems(checkPrices, data).map((problem) => `${file}: ${problem}`));
  const entries: PriceEntry[] = (data as Static<typeof PriceTable>).price;
  const models = entries.map((entry) => entry.model);
  const twice = models.filter((model, i) => models.indexOf(model) !== i);
  if (twice.length > 0) throw new CatalogError(twice.map((model) => `${file}: duplicate model '${model}'`));
  return entries;
}

/** A dated snapshot of a model: `-20250929` (Anthropic) or `-2025-08-07` (OpenAI). */
const SNAPSHOT = /^-(\d{8}|\d{4}-\d{2}-\d{2})$/;

/**
 * The entry for `model`: its own, else the one whose id it extends by a dated snapshot
 * (`claude-opus-4-5-20251101` → `claude-opus-4-5`). Only by a snapshot: `claude-sonnet-5-5` is
 * another model than `claude-sonnet-5`, and pricing it as that one would invent a figure.
 */
function priceOf(model: string, prices: PriceEntry[]): PriceEntry | null {
  return (
    prices.find((entry) => entry.model === model) ??
    prices.find((entry) => model.startsWith(entry.model) && SNAPSHOT.test(model.slice(entry.model.length))) ??
    null
  );
}

/** The cost in USD of the tokens, summed per model, or null when any model with tokens has no price (never a partial, invented figure). */
export function costOf(tokens: TranscriptTokens, prices: PriceEntry[]): { usd: number; sources: string[] } | null {
  const models = Object.entries(tokens.by_model);
  // Tokens no model is named for have no price either.
  if (models.reduce((sum, [, counts]) => sum + sumOf(counts), 0) !== sumOf(tokens)) return null;
  let usd = 0;
  const sources = new Set<string>();
  for (const [model, counts] of models) {
    const price = priceOf(model, prices);
    if (!price) return null;
    usd += (counts.input * price.input + counts.output * price.output + counts.cache_read * price.cache_read + counts.cache_creation * price.cache_write) / 1e6;
    sources.add(price.source);
  }
  return { usd, sources: [...sources] };
}
