import { OUTPUT_CHUNK_BYTES, OUTPUT_GATHER_MS, OUTPUT_KEEPALIVE_MS, OUTPUT_TAIL_BYTES } from '@paneflow/protocol';
import type { Connection } from '@paneflow/rpc';
import { inflateRawSync } from 'node:zlib';
import { deflateInBackground } from './deflate';

/** A stream's frames wait in the tail, not in the socket, once the socket holds this much. */
const STREAM_HIGH_WATER = 256 * 1024;

/** The newest output bytes, kept as they came; older ones are deflated in segments. */
const RAW_BYTES = 256 * 1024;
/** Bytes per deflated segment. */
const SEGMENT_BYTES = 256 * 1024;
/**
 * A segment is deflated this long after it left the raw window, if it is still kept: a pane that
 * floods (over 8 MiB a second) drops its segments before then, and deflating them was a sixth of
 * the host's CPU under a `cat` flood, on cores the parse needed (apps/host README, *Throughput*).
 * What a pane holds raw meanwhile is at most what it wrote in that second, within the 8 MiB.
 */
export const DEFLATE_AFTER_MS = 1000;

interface Segment {
  start: number;
  length: number;
  /** Deflated once `deflated` is true; until then the bytes as they came. */
  data: Buffer;
  deflated: boolean;
  /** When its deflate is due (Date.now() time); null once asked for. */
  deflateAt: number | null;
  /** Still kept: a deflate that finishes after its segment went is thrown away. */
  held: boolean;
}

/**
 * A session's output bytes by absolute offset: the last 8 MiB. The newest 256 KiB (what a mirror
 * that keeps up reads) stay in the chunks the PTY gave; older bytes go in segments of 256 KiB,
 * deflated a second later (DEFLATE_AFTER_MS) on libuv's thread pool (off the thread that parses;
 * read as they came until that is done), inflated when a mirror that lags reads them (the last one
 * read is kept inflated), so a busy pane's tail costs a fraction of 8 MiB. A reader asks from an
 * offset and gets what follows, or learns the bytes are gone.
 */
export class OutputTail {
  private segments: Segment[] = [];
  private chunks: Buffer[] = [];
  private rawBytes = 0;
  /** Offset of the first byte of `chunks`. */
  private rawStart = 0;
  private inflated: { start: number; data: Buffer } | null = null;
  /** Offset one past the last byte. */
  end = 0;

  private deflateTimer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    /** How a segment is deflated (a test counts the calls). */
    private readonly deflate: typeof deflateInBackground = deflateInBackground,
    private readonly deflateAfterMs = DEFLATE_AFTER_MS,
  ) {}

  /** Offset of the first kept byte. */
  private get start(): number {
    return this.segments[0]?.start ?? this.rawStart;
  }

  append(data: Buffer): void {
    this.chunks.push(data);
    this.rawBytes += data.length;
    this.end += data.length;
    if (this.rawBytes >= RAW_BYTES + SEGMENT_BYTES) this.deflateOldest();
    while (this.segments.length > 0 && this.end - this.segments[0].start > OUTPUT_TAIL_BYTES) {
      if (this.inflated?.start === this.segments[0].start) this.inflated = null;
      this.segments.shift()!.held = false;
    }
  }

  private deflateOldest() {
    const taken: Buffer[] = [];
    let length = 0;
    while (length < SEGMENT_BYTES) {
      const chunk = this.chunks.shift()!;
      taken.push(chunk);
      length += chunk.length;
    }
    const segment: Segment = { start: this.rawStart, length, data: Buffer.concat(taken, length), deflated: false, deflateAt: Date.now() + this.deflateAfterMs, held: true };
    this.segments.push(segment);
    this.rawStart += length;
    this.rawBytes -= length;
    this.armDeflate();
  }

  /** One timer for the tail, at the oldest kept segment's deflate time; a segment dropped before it is never deflated. */
  private armDeflate() {
    if (this.deflateTimer || this.closed) return;
    const due = this.segments.find((segment) => segment.deflateAt !== null)?.deflateAt ?? null;
    if (due === null) return;
    this.deflateTimer = setTimeout(() => {
      this.deflateTimer = null;
      const now = Date.now();
      for (const segment of this.segments) {
        if (segment.deflateAt === null || segment.deflateAt > now) continue;
        segment.deflateAt = null;
        this.deflate(segment.data, (deflated) => {
          if (!deflated || !segment.held) return;
          segment.data = deflated;
          segment.deflated = true;
        });
      }
      this.armDeflate();
    }, Math.max(0, due - Date.now()));
    this.deflateTimer.unref();
  }

  /** Its session is gone: nothing more is deflated (what is kept stays readable). */
  close(): void {
    this.closed = true;
    if (this.deflateTimer) clearTimeout(this.deflateTimer);
    this.deflateTimer = null;
  }

  /**
   * Up to `max` bytes from `offset` (never past the end of a deflated segment); empty at the end;
   * null when they have been evicted.
   */
  read(offset: number, max = OUTPUT_CHUNK_BYTES): Buffer | null {
    if (offset < this.start) return null;
    if (offset >= this.end) return Buffer.alloc(0);
    if (offset < this.rawStart) {
      let index = this.segments.length - 1;
      while (this.segments[index].start > offset) index--;
      const segment = this.segments[index];
      const from = offset - segment.start;
      if (!segment.deflated) return segment.data.subarray(from, Math.min(segment.length, from + max));
      if (this.inflated?.start !== segment.start) this.inflated = { start: segment.start, data: inflateRawSync(segment.data) };
      return this.inflated.data.subarray(from, Math.min(segment.length, from + max));
    }
    let at = this.rawStart;
    const parts: Buffer[] = [];
    let taken = 0;
    for (const chunk of this.chunks) {
      const chunkEnd = at + chunk.length;
      if (chunkEnd > offset && taken < max) {
        const from = Math.max(0, offset + taken - at);
        const piece = chunk.subarray(from, Math.min(chunk.length, from + max - taken));
        parts.push(piece);
        taken += piece.length;
      }
      at = chunkEnd;
      if (taken >= max) break;
    }
    return Buffer.concat(parts);
  }
}

/** A PTY resize, at the output offset where the canonical terminal took it; `seq` counts them. */
export interface ResizeMark {
  seq: number;
  offset: number;
  cols: number;
  rows: number;
}

export interface OutputSource {
  readonly id: string;
  readonly output: OutputTail;
  readonly resizes: readonly ResizeMark[];
  /** When a person's input last reached the PTY (performance.now()). */
  readonly inputs: { readonly typedAt: number };
  /** True once the session is gone: a restart made a new generation, or it was removed. */
  readonly disposed: boolean;
  watchOutput(listener: () => void): () => void;
}

/**
 * One `session.output` stream with `follow`: `output_data` frames from the asked offset, in
 * order and contiguous, pulled from the tail as the socket drains, so a slow mirror costs no
 * memory beyond the tail; one that falls behind it gets `output_evicted`, and one whose session
 * is gone (restarted as a new generation, or removed) gets `output_end`: both must attach again.
 * Each resize from `from` on goes out as `output_resized` before the bytes written after it.
 * With `keepalive`, a `keepalive` frame every 2 s shows a quiet stream is still there.
 *
 * Output waits `gatherMs` for more before it goes, all in one frame: a frame per PTY read cost a
 * mirror more to read than its bytes cost to parse, and a program's one change is often several
 * writes (its text, then its OSC 7501 report), each of which woke every mirror (apps/host README,
 * *Output to mirrors*). A face that draws every 33 ms asks 33: frames faster than it draws only
 * wake it. The first output after a person's input goes at once, so a keystroke's echo waits for
 * nothing.
 */
export function followOutput(connection: Connection, session: OutputSource, from: number, { keepalive = true, gatherMs = OUTPUT_GATHER_MS }: { keepalive?: boolean; gatherMs?: number } = {}): void {
  let offset = from;
  let waiting = false;
  let lastSentAt = -Infinity;
  let gathering: NodeJS.Timeout | null = null;
  // Resizes before `from` are in the checkpoint the mirror started from.
  let resizesSent = session.resizes.filter((m) => m.offset < from).at(-1)?.seq ?? 0;
  const pump = () => {
    if (session.disposed) {
      connection.send({ type: 'output_end', session: session.id, offset });
      stop();
      return;
    }
    while (!connection.closed && connection.bufferedBytes < STREAM_HIGH_WATER) {
      const mark = session.resizes.find((m) => m.seq > resizesSent);
      if (mark && mark.offset <= offset) {
        connection.send({ type: 'output_resized', session: session.id, offset, cols: mark.cols, rows: mark.rows });
        resizesSent = mark.seq;
        continue;
      }
      const data = session.output.read(offset, mark ? Math.min(OUTPUT_CHUNK_BYTES, mark.offset - offset) : OUTPUT_CHUNK_BYTES);
      if (data === null) {
        connection.send({ type: 'output_evicted', session: session.id, offset });
        stop();
        return;
      }
      if (data.length === 0) return;
      connection.send({ type: 'output_data', session: session.id, offset, data: data.toString('base64') });
      offset += data.length;
      lastSentAt = performance.now();
    }
    if (!waiting && !connection.closed) {
      waiting = true;
      connection.onDrain(() => {
        waiting = false;
        pump();
      });
    }
  };
  const output = () => {
    // What follows a person's keystroke is its echo: sent now, even into a gather begun before it.
    if (session.inputs.typedAt > lastSentAt) {
      if (gathering) clearTimeout(gathering);
      gathering = null;
      return pump();
    }
    if (gathering) return;
    gathering = setTimeout(() => {
      gathering = null;
      pump();
    }, gatherMs);
  };
  const unwatch = session.watchOutput(output);
  const ticker = keepalive ? setInterval(() => connection.send({ type: 'keepalive', session: session.id, offset }), OUTPUT_KEEPALIVE_MS) : null;
  const stop = () => {
    unwatch();
    if (ticker) clearInterval(ticker);
    if (gathering) clearTimeout(gathering);
    gathering = null;
  };
  connection.onClose(stop);
  pump();
}
