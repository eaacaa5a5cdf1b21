// The host's two compact stores, in process: the deep scrollback's blocks and the output tail's
// deflated segments give back exactly what went in, and drop only the oldest, at their limits.
import type { KeptRow } from '@paneflow/screen';
import { OUTPUT_TAIL_BYTES } from '@paneflow/protocol';
import { deflateInBackground } from '../src/deflate';
import { OutputTail } from '../src/output';
import { ScrollbackStore } from '../src/scrollback';

/** Each batch a block of its own (a store that seals at every commit), as the tests below count them. */
function append(store: ScrollbackStore, rows: KeptRow[]) {
  for (const row of rows) store.addRow(row);
  store.commit();
}
const everyCommit = (maxRows: number, maxBytes: number) => new ScrollbackStore(maxRows, maxBytes, undefined, 1);
const lastRows = (store: ScrollbackStore, count: number) =>
  store.rowsFromEnd((rows) => {
    const taken = Math.min(count, rows.length);
    count -= taken;
    return taken;
  });

const row = (i: number, wrapped = false): KeptRow => ({ text: `row-${i} ${'x'.repeat(i % 50)}`, runs: i % 3 ? [] : [4, 0x1000001, 0, 1, String(i).length + 1 + (i % 50), 0, 0, 0], wrapped });

describe('ScrollbackStore', () => {
  test('rows come back as they went in, from the end or all of them, with logical lines counted', () => {
    const store = everyCommit(100_000, 1 << 30);
    const rows: KeptRow[] = [];
    for (let b = 0; b < 10; b++) {
      const batch = Array.from({ length: 300 }, (_, k) => row(b * 300 + k, k % 10 === 5));
      rows.push(...batch);
      append(store, batch);
    }
    expect(store.rows).toBe(3000);
    expect([...store.allTexts()]).toEqual(rows.map(({ text, wrapped }) => ({ text, wrapped })));
    expect(lastRows(store, 450)).toEqual(rows.slice(-450));
    expect(store.lines).toBe(3000 - 300);
    const { rows: tail, complete } = store.tailTexts(500);
    expect(complete).toBe(false);
    expect(tail).toEqual(rows.slice(-tail.length).map(({ text, wrapped }) => ({ text, wrapped })));
    expect(tail.filter((r) => !r.wrapped).length).toBeGreaterThanOrEqual(500);
  });

  test('past its rows or its bytes the oldest blocks go, counted; ED 3 clears without counting', () => {
    const byRows = everyCommit(1000, 1 << 30);
    for (let b = 0; b < 10; b++) append(byRows, Array.from({ length: 300 }, (_, k) => row(b * 300 + k)));
    expect(byRows.rows).toBe(1200); // at least 1000, whole blocks
    expect(byRows.droppedRows).toBe(1800);
    expect(lastRows(byRows, 1)).toEqual([row(2999)]);
    expect([...byRows.allTexts()][0]).toEqual({ text: row(1800).text, wrapped: false });

    const byBytes = everyCommit(1_000_000, 4096);
    for (let b = 0; b < 50; b++) append(byBytes, Array.from({ length: 100 }, (_, k) => ({ text: `${b}-${k}-${Math.random()}`, runs: [], wrapped: false })));
    expect(byBytes.bytes).toBeLessThanOrEqual(4096);
    expect(byBytes.droppedRows + byBytes.rows).toBe(5000);
    expect(byBytes.droppedRows).toBeGreaterThan(0);

    byRows.clear();
    expect([byRows.rows, byRows.lines, byRows.droppedRows]).toEqual([0, 0, 1800]);
  });

  test('a first kept row that continues a dropped one counts as a line of its own', () => {
    const store = everyCommit(1, 1 << 30);
    append(store, [row(1), row(2, true)]);
    append(store, [row(3, true), row(4, true)]);
    expect(store.droppedRows).toBe(2);
    expect(store.lines).toBe(1);
  });
  test('rows packed into 64 KiB blocks read back the same while their deflate runs, after it, and from the open block', async () => {
    const store = new ScrollbackStore(100_000, 1 << 30);
    const rows = Array.from({ length: 5000 }, (_, i) => row(i, i % 7 === 3));
    for (let at = 0; at < rows.length; at += 150) append(store, rows.slice(at, at + 150));
    const texts = rows.map(({ text, wrapped }) => ({ text, wrapped }));
    expect(store.compressing).toBeGreaterThan(0);
    expect([...store.allTexts()]).toEqual(texts);
    const packed = store.bytes;
    while (store.compressing > 0) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(store.bytes).toBeLessThan(packed / 3);
    expect([...store.allTexts()]).toEqual(texts);
    expect(lastRows(store, 4000)).toEqual(rows.slice(-4000));
    expect([store.rows, store.lines]).toEqual([5000, rows.filter((r) => !r.wrapped).length]);
  });

  test('the newest rows or lines let go: whole lines or rows, from the open block and through sealed ones, deflated or not, uncounted', async () => {
    const store = new ScrollbackStore(100_000, 1 << 30, undefined, 4096);
    const rows = Array.from({ length: 3000 }, (_, i) => row(i, i % 4 !== 0)); // lines of four rows
    for (let at = 0; at < rows.length; at += 100) append(store, rows.slice(at, at + 100));
    const texts = (kept: KeptRow[]) => kept.map(({ text, wrapped }) => ({ text, wrapped }));
    store.dropNewestLines(2);
    expect([...store.allTexts()]).toEqual(texts(rows.slice(0, 2992)));
    while (store.compressing > 0) await new Promise((resolve) => setTimeout(resolve, 5));
    // Through several sealed blocks (4 KiB each, a few dozen rows), one left in part and packed again.
    store.dropNewestLines(100);
    expect([...store.allTexts()]).toEqual(texts(rows.slice(0, 2592)));
    expect([store.rows, store.lines, store.droppedRows]).toEqual([2592, 648, 0]);
    expect(lastRows(store, 10)).toEqual(rows.slice(2582, 2592));
    append(store, rows.slice(2592, 2600));
    expect([...store.allTexts()]).toEqual(texts(rows.slice(0, 2600)));
    // Rows, not lines: a line cut after its first row keeps that row.
    store.dropNewestRows(7);
    expect([...store.allTexts()]).toEqual(texts(rows.slice(0, 2593)));
    expect([store.rows, store.lines]).toEqual([2593, 649]);
    store.dropNewestLines(10_000);
    expect([store.rows, store.lines]).toEqual([0, 0]);
  });
});

describe('OutputTail', () => {
  const MiB = 1024 * 1024;
  /** Chunks of the sizes a PTY gives, each byte a function of its offset. */
  function feed(tail: OutputTail, total: number): Buffer {
    const all = Buffer.alloc(total);
    for (let i = 0; i < total; i++) all[i] = (i * 7 + (i >> 12)) & 0xff;
    for (let at = 0, n = 0; at < total; n++) {
      const size = Math.min(total - at, [4096, 17, 65536, 1000][n % 4]);
      tail.append(Buffer.from(all.subarray(at, at + size)));
      at += size;
    }
    return all;
  }
  /** Everything from `offset` to the end, read as a mirror reads it. */
  function readFrom(tail: OutputTail, offset: number): Buffer | null {
    const parts: Buffer[] = [];
    for (let at = offset; at < tail.end; ) {
      const data = tail.read(at);
      if (data === null) return null;
      parts.push(Buffer.from(data));
      at += data.length;
    }
    return Buffer.concat(parts);
  }

  /** A tail whose deflates are due at once, counted: each one's end is a promise to wait for. */
  function countedTail() {
    const deflates: Promise<void>[] = [];
    let bytes = 0;
    const tail = new OutputTail((data, done) => {
      bytes += data.length;
      deflates.push(new Promise((resolve) => deflateInBackground(data, (deflated) => (done(deflated), resolve()))));
    }, 0);
    // The tail's timer was set first, so it has run when this one does: every due deflate asked for.
    const deflated = async () => {
      await new Promise((resolve) => setTimeout(resolve, 0));
      await Promise.all(deflates);
      return { segments: deflates.length, bytes };
    };
    return { tail, deflated };
  }

  test('every kept byte reads back exactly, from raw segments, deflated ones and raw chunks alike', async () => {
    const { tail, deflated } = countedTail();
    const all = feed(tail, 3 * MiB + 12345);
    const offsets = [0, 1, 262_143, 262_144, MiB + 77, all.length - 100_000, all.length - 1, all.length];
    // Buffer.equals: jest's deep equality walks megabytes byte by byte.
    for (const offset of offsets) expect(readFrom(tail, offset)?.equals(all.subarray(offset))).toBe(true);
    expect((await deflated()).segments).toBeGreaterThanOrEqual(10);
    for (const offset of offsets) expect(readFrom(tail, offset)?.equals(all.subarray(offset))).toBe(true);
    expect(tail.read(5, 10)?.equals(all.subarray(5, 15))).toBe(true);
  });

  test('a segment dropped before its deflate is due is never deflated (a flood costs no deflate); a closed tail deflates nothing', async () => {
    const flood = countedTail();
    const all = feed(flood.tail, 12 * MiB);
    // Of the 12 MiB made into segments, only what was still kept when the deflates came due.
    const { segments, bytes } = await flood.deflated();
    expect(segments).toBeGreaterThan(20);
    expect(bytes).toBeLessThanOrEqual(OUTPUT_TAIL_BYTES);
    const firstKept = all.length - OUTPUT_TAIL_BYTES + 512 * 1024;
    expect(readFrom(flood.tail, firstKept)?.equals(all.subarray(firstKept))).toBe(true);

    const closed = countedTail();
    feed(closed.tail, 3 * MiB);
    closed.tail.close();
    expect((await closed.deflated()).segments).toBe(0);
  });

  test('past 8 MiB the oldest bytes go: a read before them is null, after them exact', () => {
    const tail = new OutputTail();
    const all = feed(tail, 9 * MiB);
    expect(tail.read(0)).toBeNull();
    expect(tail.read(all.length - OUTPUT_TAIL_BYTES - 1)).toBeNull();
    const firstKept = all.length - OUTPUT_TAIL_BYTES + 512 * 1024; // segments go whole (256 KiB and a chunk)
    expect(readFrom(tail, firstKept)?.equals(all.subarray(firstKept))).toBe(true);
  });
});
