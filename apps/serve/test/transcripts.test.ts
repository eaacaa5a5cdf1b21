// A turn's tokens read from its transcript, on the files a hook may name: whatever the path is,
// serve reads a bounded part of a regular file, and nothing else can hold it up.
import { runtimeCatalog } from '@paneflow/procscan';
import type { TurnRecord } from '@paneflow/protocol';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TranscriptMark, turnTokensOf } from '../src/turns/tokens';

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'pf-transcripts-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const claude = runtimeCatalog().bySlug.get('claude-code');
const now = Date.now();
const turn = { session: '6f1c2f3a-9b0e-4d7a-8c1e-2a3b4c5d6e7f', turn: 1, started_at_ms: now - 5000, ended_at_ms: now } as TurnRecord;
const line = (id: string, atMs: number, output: number) =>
  JSON.stringify({ type: 'assistant', timestamp: new Date(atMs).toISOString(), message: { id, model: 'claude-opus-5-5', usage: { input_tokens: 1, output_tokens: output } } });

test('only what the transcript gained since the turn began is its own', async () => {
  const path = join(dir, 'session.jsonl');
  writeFileSync(path, `${line('before', now - 4000, 100)}\n`);
  const mark = await TranscriptMark.at(path);
  writeFileSync(path, `${line('before', now - 4000, 100)}\n${line('during', now - 1000, 7)}\n`);
  const logged: string[] = [];
  expect(await turnTokensOf(claude, path, mark, turn, (m) => logged.push(m))).toMatchObject({ input: 1, output: 7, model: 'claude-opus-5-5' });
  expect(logged).toEqual([]);
});

test('a FIFO, a device or a directory in the transcript’s place is refused at once, never waited on', async () => {
  const fifo = join(dir, 'fifo.jsonl');
  execFileSync('mkfifo', [fifo]);
  for (const path of [fifo, '/dev/zero', dir]) {
    const logged: string[] = [];
    expect(await turnTokensOf(claude, path, null, turn, (m) => logged.push(m))).toBeNull();
    expect(logged).toEqual([expect.stringMatching(/refused: (a FIFO|a character device|a directory), not a regular file$/)]);
  }
  // Nor is a mark taken of one.
  expect(await TranscriptMark.at(fifo)).toBeNull();
});
