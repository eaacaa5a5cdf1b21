import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import texts from 'virtual:paneflow-runtimes';
import { CatalogError, costOf, parseCatalog, parsePrices, priceTable, runtimeCatalog, turnTokens, type PriceEntry, type TranscriptTokens } from '../src';

// Real files, trimmed and anonymised (libs/procscan/README.md, "Token usage", says how they were made).
const claude = readFileSync(join(__dirname, 'samples/claude-transcript.jsonl'), 'utf8');
const codex = readFileSync(join(__dirname, 'samples/codex-rollout.jsonl'), 'utf8');

const at = (iso: string) => Date.parse(iso);
const window = (start: string, end: string) => ({ startMs: at(start), endMs: at(end) });
const everything = window('2026-01-01T00:00:00Z', '2027-01-01T00:00:00Z');
const lines = (text: string) => text.split('\n').filter((line) => line !== '');
const without = (text: string, test: (line: Record<string, unknown>) => boolean) => `${lines(text).filter((line) => !test(JSON.parse(line))).join('\n')}\n`;
const jsonl = (...objects: unknown[]) => objects.map((o) => JSON.stringify(o)).join('\n');

describe("Claude Code's transcript (2.1.332, two turns: claude-opus-5-5, then claude-sonnet-5 after --resume)", () => {
  // Its assistant lines, by hand (usage: input, output, cache read, cache creation):
  //   turn 1  msg_standin2  45.735Z text, 46.147Z tool_use   3   49  19000  437  (same usage on both lines)
  //           msg_standin3  46.563Z text                      4   58  20000  474
  //   turn 2  msg_standin5  49.712Z text, 50.113Z tool_use   5   67  21000  511
  //           msg_standin6  50.551Z text                      6   76  22000  548
  const turn1 = window('2026-12-04T13:19:45.566Z', '2026-12-04T13:19:49.000Z');
  const turn2 = window('2026-12-04T13:19:49.548Z', '2026-12-04T13:19:51.000Z');
  const opus = { input: 7, output: 107, cache_read: 39000, cache_creation: 911 };
  const sonnet = { input: 11, output: 143, cache_read: 43000, cache_creation: 1059 };

  test('a turn counts each API message once, though Claude Code writes a line per content block', () => {
    expect(turnTokens('claude_transcript', claude, turn1)).toEqual({ ...opus, model: 'claude-opus-5-5', by_model: { 'claude-opus-5-5': opus } });
    expect(turnTokens('claude_transcript', claude, turn2)).toEqual({ ...sonnet, model: 'claude-sonnet-5', by_model: { 'claude-sonnet-5': sonnet } });
    // Adding every line up would count msg_standin2 twice.
    const everyLine = lines(claude)
      .map((line) => JSON.parse(line))
      .filter((line) => line.type === 'assistant' && Date.parse(line.timestamp) <= turn1.endMs)
      .reduce((sum, line) => sum + line.message.usage.output_tokens, 0);
    expect(everyLine).toBe(49 + 49 + 58);
  });

  test('both turns together: per model, and the model is the one with most output', () => {
    expect(turnTokens('claude_transcript', claude, everything)).toEqual({
      input: 18,
      output: 250,
      cache_read: 82000,
      cache_creation: 1970,
      model: 'claude-sonnet-5',
      by_model: { 'claude-opus-5-5': opus, 'claude-sonnet-5': sonnet },
    });
  });

  test('the price table costs them as Claude Code itself did (its cost-state lines)', () => {
    const costs = lines(claude)
      .map((line) => JSON.parse(line))
      .filter((line) => line.type === 'cost-state')
      .map((line) => line.totalCostUSD as number);
    expect(costs).toHaveLength(2); // after turn 1, then the session's total after turn 2
    // By hand: (7·4 + 107·20 + 39000·0.20 + 911·5) / 1e6 and (11·2 + 143·10 + 43000·0.20 + 1059·2.50) / 1e6.
    const one = costOf(turnTokens('claude_transcript', claude, turn1)!, priceTable())!;
    expect(one.usd).toBeCloseTo(0.014523, 12);
    expect(one.usd).toBeCloseTo(costs[0], 12);
    const both = costOf(turnTokens('claude_transcript', claude, everything)!, priceTable())!;
    expect(both.usd).toBeCloseTo(0.014523 + 0.0126995, 12);
    expect(both.usd).toBeCloseTo(costs[1], 12);
    expect(both.sources).toEqual(['https://platform.claude.com/docs/zh-CN/models/opus-5-5/overview', 'https://platform.claude.com/docs/zh-CN/models/sonnet-5/overview']);
  });

  test("the window's bounds are inclusive, and a message belongs where its last line is", () => {
    const only = (start: string, end: string) => turnTokens('claude_transcript', claude, window(start, end));
    // msg_standin2's first line is in, its last (46.147Z) is not: not yet this window's.
    expect(only('2026-12-04T13:19:45.566Z', '2026-12-04T13:19:46.146Z')).toBeNull();
    expect(only('2026-12-04T13:19:46.147Z', '2026-12-04T13:19:46.147Z')).toMatchObject({ input: 3, output: 49, cache_read: 19000, cache_creation: 437 });
    expect(only('2026-12-04T13:19:46.148Z', '2026-12-04T13:19:46.563Z')).toMatchObject({ input: 4, output: 58, cache_read: 20000, cache_creation: 474 });
    expect(only('2026-12-04T13:19:46.564Z', '2026-12-04T13:19:49.711Z')).toBeNull();
  });

  test('an older version that wrote the usage as streamed so far: the last line of the id counts', () => {
    const line = (ts: string, id: string, output: number) => ({
      type: 'assistant',
      timestamp: ts,
      message: { id, model: 'claude-opus-5-5', usage: { input_tokens: 2, output_tokens: output, cache_read_input_tokens: 100, cache_creation_input_tokens: 10 } },
    });
    const text = jsonl(line('2026-12-04T10:00:00.000Z', 'msg_a', 1), line('2026-12-04T10:00:01.000Z', 'msg_a', 30), line('2026-12-04T10:00:02.000Z', 'msg_b', 7));
    expect(turnTokens('claude_transcript', text, everything)).toMatchObject({ input: 4, output: 37, cache_read: 200, cache_creation: 20 });
  });

  test('malformed lines are skipped, never thrown', () => {
    const broken = [
      'not json',
      '[1, 2]',
      '{"type":"assistant","timestamp":"2026-12-04T13:19:46.000Z","message":{"id":"x1","model":"m","usage":{"input_tokens":"12","output_tokens":1}}}',
      '{"type":"assistant","timestamp":"yesterday","message":{"id":"x2","model":"m","usage":{"input_tokens":12,"output_tokens":1}}}',
      '{"type":"assistant","timestamp":"2026-12-04T13:19:46.000Z","message":{"id":"x3","model":"m","usage":null}}',
      '{"type":"assistant","timestamp":"2026-12-04T13:19:46.000Z","message":"text"}',
      '{"type":"assistant","timestamp":"2026-12-04T13:19:46.000Z","mess', // a line cut off as it was written
      // Counts a record cannot keep: a fraction, a negative, past a safe integer.
      '{"type":"assistant","timestamp":"2026-12-04T13:19:46.000Z","message":{"id":"x4","model":"m","usage":{"input_tokens":1.5,"output_tokens":1}}}',
      '{"type":"assistant","timestamp":"2026-12-04T13:19:46.000Z","message":{"id":"x5","model":"m","usage":{"input_tokens":-3,"output_tokens":1}}}',
      '{"type":"assistant","timestamp":"2026-12-04T13:19:46.000Z","message":{"id":"x6","model":"m","usage":{"input_tokens":1e300,"output_tokens":1}}}',
    ];
    const text = [...lines(claude).slice(0, 25), ...broken, ...lines(claude).slice(25)].join('\n');
    expect(turnTokens('claude_transcript', text, turn1)).toEqual(turnTokens('claude_transcript', claude, turn1));
  });
});

describe("Codex's rollout (0.171.0, two turns: gpt-6.2-sol with a tool call, then gpt-6-sol after resume -m)", () => {
  // Its usage by hand, per response (input_tokens includes the cached ones; no cache writes):
  //   turn 1  resp_standin1 22.871Z  input 1200, cached 800,  output 37
  //           resp_standin2 22.941Z  input 2200, cached 1600, output 67   → uncached 400 + 600
  //   turn 2  resp_standin3 25.399Z  input 3200, cached 2400, output 97   → uncached 800
  // token_count totals: 1200/800/37 at 22.907Z, 3400/2400/104 at 22.942Z, 6600/4800/201 at 25.400Z.
  const turn1 = window('2026-12-04T13:20:22.770Z', '2026-12-04T13:20:22.947Z');
  const turn2 = window('2026-12-04T13:20:25.251Z', '2026-12-04T13:20:25.406Z');
  const sol62 = { input: 1000, output: 104, cache_read: 2400, cache_creation: 0 };
  const sol6 = { input: 800, output: 97, cache_read: 2400, cache_creation: 0 };
  const noRecords = without(codex, (line) => line.type === 'token_usage_record');

  test('a turn is the uncached input, the cached input and the output of its responses', () => {
    const one = turnTokens('codex_rollout', codex, turn1)!;
    expect(one).toEqual({ ...sol62, model: 'gpt-6.2-sol', by_model: { 'gpt-6.2-sol': sol62 } });
    // `codex exec` printed "tokens used 1,104" for it: uncached input plus output.
    expect(one.input + one.output).toBe(1104);
    expect(turnTokens('codex_rollout', codex, turn2)).toEqual({ ...sol6, model: 'gpt-6-sol', by_model: { 'gpt-6-sol': sol6 } });
    expect(turnTokens('codex_rollout', codex, everything)).toEqual({
      input: 1800,
      output: 201,
      cache_read: 4800,
      cache_creation: 0,
      model: 'gpt-6.2-sol',
      by_model: { 'gpt-6.2-sol': sol62, 'gpt-6-sol': sol6 },
    });
  });

  test('without token_usage_record lines (older Codex), the cumulative totals give the same counts', () => {
    expect(noRecords).not.toContain('token_usage_record');
    for (const w of [turn1, turn2, everything]) expect(turnTokens('codex_rollout', noRecords, w)).toEqual(turnTokens('codex_rollout', codex, w));
    // The second turn's total is the session's: 6600 input, 4800 cached, 201 output.
    const secondTotal = lines(noRecords)
      .map((line) => JSON.parse(line))
      .filter((line) => line.payload?.type === 'token_count')
      .pop().payload.info.total_token_usage;
    expect(secondTotal).toMatchObject({ input_tokens: 6600, cached_input_tokens: 4800, output_tokens: 201 });
  });

  test('a text that starts at the turn (read from a mark) counts the first event by its last usage', () => {
    const fromTurn2 = lines(noRecords).slice(lines(noRecords).findIndex((line) => JSON.parse(line).timestamp >= '2026-12-04T13:20:25.251Z'));
    expect(turnTokens('codex_rollout', fromTurn2.join('\n'), everything)).toEqual({ ...sol6, model: 'gpt-6-sol', by_model: { 'gpt-6-sol': sol6 } });
  });

  test('a token_count sent again with unchanged totals (a rate-limit update) is not counted again', () => {
    // Summing each event's last_token_usage would count these twice.
    const again = lines(noRecords).flatMap((line) => (JSON.parse(line).payload?.type === 'token_count' ? [line, line] : [line]));
    expect(again.length).toBe(lines(noRecords).length + 3);
    expect(turnTokens('codex_rollout', again.join('\n'), turn1)).toEqual(turnTokens('codex_rollout', codex, turn1));
  });

  test('a record written twice for one response counts once', () => {
    const twice = lines(codex).flatMap((line) => (JSON.parse(line).type === 'token_usage_record' ? [line, line] : [line]));
    expect(turnTokens('codex_rollout', twice.join('\n'), everything)).toEqual(turnTokens('codex_rollout', codex, everything));
  });

  test('a total that shrinks started again from zero', () => {
    const count = (ts: string, input: number, cached: number, output: number) => ({
      timestamp: ts,
      type: 'event_msg',
      payload: { type: 'token_count', info: { total_token_usage: { input_tokens: input, cached_input_tokens: cached, output_tokens: output }, last_token_usage: null } },
    });
    const text = jsonl(
      { timestamp: '2026-12-04T10:00:00.000Z', type: 'turn_context', payload: { model: 'gpt-6.2-sol' } },
      count('2026-12-04T10:00:01.000Z', 500, 100, 20),
      count('2026-12-04T10:00:02.000Z', 300, 0, 10),
      count('2026-12-04T10:00:03.000Z', 700, 200, 15),
    );
    // Before the window: 500/100/20. Then a fresh 300/0/10, and 400/200/5 on top of it.
    expect(turnTokens('codex_rollout', text, window('2026-12-04T10:00:02.000Z', '2026-12-04T10:00:03.000Z'))).toMatchObject({ input: 300 + 200, cache_read: 200, output: 15 });
  });

  test("the window's bounds are inclusive", () => {
    const only = (start: string, end: string) => turnTokens('codex_rollout', codex, window(start, end));
    expect(only('2026-12-04T13:20:22.871Z', '2026-12-04T13:20:22.871Z')).toMatchObject({ input: 400, cache_read: 800, output: 37 });
    expect(only('2026-12-04T13:20:22.872Z', '2026-12-04T13:20:22.941Z')).toMatchObject({ input: 600, cache_read: 1600, output: 67 });
    expect(only('2026-12-04T13:20:22.948Z', '2026-12-04T13:20:25.398Z')).toBeNull();
  });

  test('malformed lines are skipped, never thrown', () => {
    const broken = [
      '{"timestamp":"2026-12-04T13:20:22.900Z","type":"token_usage_record","payload":{"response_id":"r9","usage":{"input_tokens":-5}}}',
      '{"timestamp":"2026-12-04T13:20:22.900Z","type":"event_msg","payload":{"type":"token_count","info":null}}',
      '{"timestamp":"2026-12-04T13:20:22.900Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":"many"}}}',
      '{"type":"token_usage_record","payload":{"response_id":"r8","usage":{"input_tokens":5,"output_tokens":5}}}',
      '{"timestamp":"2026-12-04T13:20:22.900Z","type":"turn_context","payload":"gpt"}',
      '{"timestamp":"2026-12-04T13:20:22.9',
    ];
    for (const text of [codex, noRecords]) {
      const mixed = [...lines(text).slice(0, 12), ...broken, ...lines(text).slice(12)].join('\n');
      expect(turnTokens('codex_rollout', mixed, everything)).toEqual(turnTokens('codex_rollout', codex, everything));
    }
  });

  test('the price table costs the gpt-6.2-sol turn; the gpt-6-sol one has no price, so no cost', () => {
    // (1000·2 + 104·10 + 2400·0.10) / 1e6
    expect(costOf(turnTokens('codex_rollout', codex, turn1)!, priceTable())).toEqual({ usd: expect.closeTo(0.00328, 12), sources: ['https://developers.openai.com/api/docs/models/gpt-6.2-sol'] });
    expect(costOf(turnTokens('codex_rollout', codex, turn2)!, priceTable())).toBeNull();
    expect(costOf(turnTokens('codex_rollout', codex, everything)!, priceTable())).toBeNull();
  });

  test('without a turn_context the model is unknown: counted, but not priced', () => {
    const unnamed = turnTokens('codex_rollout', without(codex, (line) => line.type === 'turn_context'), turn1)!;
    expect(unnamed).toEqual({ ...sol62, model: null, by_model: {} });
    expect(costOf(unnamed, priceTable())).toBeNull();
  });
});

test('a text of another format, or nothing in the window, is null', () => {
  expect(turnTokens('claude_transcript', codex, everything)).toBeNull();
  expect(turnTokens('codex_rollout', claude, everything)).toBeNull();
  expect(turnTokens('claude_transcript', '', everything)).toBeNull();
  expect(turnTokens('codex_rollout', 'garbage\n{}\n', everything)).toBeNull();
  expect(turnTokens('claude_transcript', claude, window('2026-12-05T00:00:00Z', '2026-12-06T00:00:00Z'))).toBeNull();
});

describe('costOf', () => {
  const prices: PriceEntry[] = [
    { model: 'alpha', input: 1, output: 10, cache_read: 0.1, cache_write: 1.25, source: 'https://example.com/alpha', as_of: '2026-12-04' },
    { model: 'alpha-2', input: 2, output: 20, cache_read: 0.2, cache_write: 2.5, source: 'https://example.com/alpha-2', as_of: '2026-12-04' },
  ];
  const tokens = (by_model: Record<string, TranscriptTokens['by_model'][string]>): TranscriptTokens => {
    const sum = Object.values(by_model).reduce((s, c) => ({ input: s.input + c.input, output: s.output + c.output, cache_read: s.cache_read + c.cache_read, cache_creation: s.cache_creation + c.cache_creation }), {
      input: 0,
      output: 0,
      cache_read: 0,
      cache_creation: 0,
    });
    return { ...sum, model: Object.keys(by_model)[0] ?? null, by_model };
  };
  const million = { input: 1e6, output: 1e6, cache_read: 1e6, cache_creation: 1e6 };

  test('each model at its own price, summed, with every source used', () => {
    expect(costOf(tokens({ alpha: million }), prices)).toEqual({ usd: expect.closeTo(12.35, 9), sources: ['https://example.com/alpha'] });
    expect(costOf(tokens({ alpha: million, 'alpha-2': { input: 0, output: 1000, cache_read: 0, cache_creation: 0 } }), prices)).toEqual({
      usd: expect.closeTo(12.35 + 0.02, 9),
      sources: ['https://example.com/alpha', 'https://example.com/alpha-2'],
    });
  });

  test('a dated snapshot takes its model’s price; another model that merely starts alike does not', () => {
    expect(costOf(tokens({ 'alpha-2-20260101': million }), prices)?.usd).toBeCloseTo(24.7, 9);
    expect(costOf(tokens({ 'alpha-2026-01-01': million }), prices)?.usd).toBeCloseTo(12.35, 9);
    expect(costOf(tokens({ 'alpha-3': million }), prices)).toBeNull();
    expect(costOf(tokens({ 'alpha-2-mini': million }), prices)).toBeNull();
    // In the real table: Opus 4.5's snapshot id, and Sonnet 5.5 (not listed) is not priced as Sonnet 5.
    expect(costOf(tokens({ 'claude-opus-4-5-20251101': million }), priceTable())?.sources).toEqual(['https://platform.claude.com/docs/en/about-claude/pricing']);
    expect(costOf(tokens({ 'claude-sonnet-5-5': million }), priceTable())).toBeNull();
    expect(costOf(tokens({ 'claude-opus-5-5': million }), priceTable())?.usd).toBeCloseTo(4 + 20 + 0.2 + 5, 9);
  });

  test('one model without a price leaves the whole turn without a cost', () => {
    expect(costOf(tokens({ alpha: million, beta: { input: 1, output: 0, cache_read: 0, cache_creation: 0 } }), prices)).toBeNull();
  });
});

describe('runtimes/prices.toml', () => {
  test('every entry names a vendor page and the day its figures were read', () => {
    const table = priceTable();
    expect(table.map((entry) => entry.model)).toEqual(['claude-opus-5-5', 'claude-opus-5', 'claude-sonnet-5', 'claude-opus-4-5', 'gpt-6.2-sol']);
    for (const entry of table) {
      expect(entry.source).toMatch(/^https:\/\/(platform\.claude\.com|developers\.openai\.com)\//);
      expect(entry.as_of).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    }
  });

  test('a table that breaks the rules is refused, naming the file', () => {
    const good = '[[price]]\nmodel = "m"\ninput = 1\noutput = 2\ncache_read = 0.1\ncache_write = 1.25\nsource = "https://example.com/p"\nas_of = "2026-12-04"\n';
    expect(parsePrices(good)).toEqual([{ model: 'm', input: 1, output: 2, cache_read: 0.1, cache_write: 1.25, source: 'https://example.com/p', as_of: '2026-12-04' }]);
    expect(() => parsePrices(good.replace('as_of', 'currency = "EUR"\nas_of'))).toThrow(/runtimes\/prices.toml: price.0: unknown key 'currency'/);
    expect(() => parsePrices(good.replace(/^source = .*$/m, ''))).toThrow(/price.0: missing key 'source'/);
    expect(() => parsePrices(good.replace('https://', 'http://'))).toThrow(/price.0.source/);
    expect(() => parsePrices(good.replace('input = 1', 'input = -1'))).toThrow(/price.0.input/);
    expect(() => parsePrices(good + good)).toThrow(/runtimes\/prices.toml: duplicate model 'm'/);
    expect(() => parsePrices(`${good}broken = \n`)).toThrow(CatalogError);
  });
});

describe('[tokens] in runtime.toml', () => {
  test('Claude Code and Codex name their readers; no other runtime has one', () => {
    expect(runtimeCatalog().runtimes.flatMap((r) => (r.tokens ? [[r.slug, r.tokens.reader]] : []))).toEqual([
      ['claude-code', 'claude_transcript'],
      ['codex', 'codex_rollout'],
    ]);
  });

  test('an unknown reader or key is a catalog problem', () => {
    const codexToml = texts.codex;
    expect(codexToml).toContain('reader = "codex_rollout"');
    expect(() => parseCatalog({ ...texts, codex: codexToml.replace('reader = "codex_rollout"', 'reader = "codex_log"') })).toThrow(/runtimes\/codex\/runtime.toml: tokens.reader/);
    expect(() => parseCatalog({ ...texts, codex: codexToml.replace('reader = "codex_rollout"', 'reader = "codex_rollout"\npath = "x"') })).toThrow(/runtimes\/codex\/runtime.toml: tokens: unknown key 'path'/);
    expect(() => parseCatalog({ ...texts, pi: `${texts.pi}\n[tokens]\nreader = "claude_transcript"\n` })).not.toThrow();
  });
});
