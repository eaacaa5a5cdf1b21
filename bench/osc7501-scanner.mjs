// Scanner throughput on 64 MB of agent-like output with an OSC 7501 report every 4 KiB, fed in
// 32 KiB chunks (the host's PTY read size), against a plain Buffer.indexOf pass for the introducer
// over the same chunks: the floor any scanner must spend to find the sequences at all.
// Run: npm run bench:scanner   (builds libs/osc7501 first)
import { Scanner, encode } from '@paneflow/osc7501';

const TOTAL = 64 * 1024 * 1024;
const CHUNK = 32 * 1024;
const RUNS = 5;

function agentOutput() {
  const lines = [
    '\x1b[1m\x1b[36m⏺\x1b[0m Reading \x1b[4msrc/server/routes.ts\x1b[0m (412 lines)\r\n',
    '  \x1b[2m│\x1b[0m  const user = await db.users.find({ id: req.params[0] });\r\n',
    '\x1b[32m+\x1b[0m   if (!user) return res.status(404).json({ error: "not found" });\r\n',
    '\x1b[31m-\x1b[0m   return res.json(user);\r\n',
    '  PASS  test/routes.test.ts (3.2 s) ✓ 41 tests, 日本語のコメント\r\n',
    '\x1b[2K\x1b[1A\x1b[2K\x1b[G\x1b[38;5;208m✻ Thinking…\x1b[39m (esc to interrupt)\r\n',
    '\x1b]0;✳ Fix the login redirect\x07',
    '  └─ arr[i] = matrix[j][k] + offsets[2];  // [WIP] see issue [#42]\r\n',
  ];
  const reports = [
    encode({ state: 'working', app: 'claude-code' }),
    encode({ state: 'blocked', kind: 'permission', app: 'claude-code', msg: 'approve Bash: npm test' }),
    encode({ state: 'done', app: 'claude-code' }),
  ];
  const parts = [];
  let size = 0;
  let nextReport = 4096;
  let i = 0;
  while (size < TOTAL) {
    const line = lines[i % lines.length];
    parts.push(line);
    size += Buffer.byteLength(line);
    if (size >= nextReport) {
      const report = reports[i % reports.length];
      parts.push(report);
      size += report.length;
      nextReport += 4096;
    }
    i++;
  }
  return Buffer.from(parts.join(''));
}

const data = agentOutput();
const byteChunks = [];
for (let o = 0; o < data.length; o += CHUNK) byteChunks.push(data.subarray(o, o + CHUNK));
// Strings as node-pty delivers them: each read decoded as UTF-8.
const stringChunks = byteChunks.map((chunk) => chunk.toString('utf8'));
const needle = Buffer.from('\x1b]7501;');

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function measure(run) {
  const rates = [];
  let result;
  for (let r = 0; r < RUNS; r++) {
    const start = process.hrtime.bigint();
    result = run();
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    rates.push(data.length / 1e6 / seconds);
  }
  return { rate: median(rates), result };
}

const floor = measure(() => {
  let found = 0;
  for (const chunk of byteChunks) {
    for (let p = chunk.indexOf(needle); p !== -1; p = chunk.indexOf(needle, p + 1)) found++;
  }
  return found;
});
const splitBytes = measure(() => {
  const scanner = new Scanner();
  let items = 0;
  for (const chunk of byteChunks) for (const piece of scanner.split(chunk)) if (!(piece instanceof Uint8Array)) items++;
  return items;
});
const feedBytes = measure(() => {
  const scanner = new Scanner();
  let items = 0;
  for (const chunk of byteChunks) items += scanner.feed(chunk).items.length;
  return items;
});
const decodeOnly = measure(() => {
  const decoder = new TextDecoder();
  let length = 0;
  for (const chunk of byteChunks) length += decoder.decode(chunk, { stream: true }).length;
  return length;
});
const scanStrings = measure(() => {
  const scanner = new Scanner();
  let items = 0;
  for (const chunk of stringChunks) items += scanner.feed(chunk).items.length;
  return items;
});

const fmt = (n) => n.toFixed(0).padStart(6);
const share = (m) => `${((m.rate / floor.rate) * 100).toFixed(0).padStart(3)}% of floor`;
console.log(`input: ${(data.length / 1e6).toFixed(1)} MB in ${byteChunks.length} chunks of 32 KiB, ${floor.result} reports; median of ${RUNS} runs`);
console.log(`floor: Buffer.indexOf pass         ${fmt(floor.rate)} MB/s`);
console.log(`Scanner.feed(string)               ${fmt(scanStrings.rate)} MB/s  ${share(scanStrings)}   (the host's case: node-pty strings)`);
console.log(`Scanner.split(Uint8Array)          ${fmt(splitBytes.rate)} MB/s  ${share(splitBytes)}   (bytes in, bytes out)`);
console.log(`Scanner.feed(Uint8Array)           ${fmt(feedBytes.rate)} MB/s  ${share(feedBytes)}   (decodes its text as UTF-8)`);
console.log(`  for scale, TextDecoder alone     ${fmt(decodeOnly.rate)} MB/s  ${share(decodeOnly)}`);
console.log('target: at least 40% of the floor');
for (const m of [scanStrings, splitBytes, feedBytes]) {
  if (m.result !== floor.result) {
    console.error('the scanner did not find every report');
    process.exit(1);
  }
}
