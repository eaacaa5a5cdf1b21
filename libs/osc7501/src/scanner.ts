import { BACKSLASH, BEL, CAN, ESC, INTRO, INTRODUCER, MAX_BODY_BYTES_BEL, MAX_BODY_BYTES_ST, SUB } from './limits';
import { parseBody } from './parse';
import { streamingUtf8Decoder, type Utf8Decoder } from './text';
import type { Parsed, Terminator } from './types';

export interface ScanResult {
  /** The OSC 7501 sequences found, in stream order. */
  items: Parsed[];
  /** Every other byte of the chunk, unchanged (byte chunks are decoded as a UTF-8 stream). */
  text: string;
}

/** A chunk cut in stream order: text of the input's own type, and the sequences between it. */
export type Piece<T extends string | Uint8Array> = T | Parsed;

const INTRO_LENGTH = INTRO.length;
const INTRO_BYTES = new Uint8Array(INTRO);
/** Horspool shifts for finding the introducer in bytes without a native subarray search. */
const SHIFT = new Uint8Array(256).fill(INTRO_LENGTH);
for (let k = 0; k < INTRO_LENGTH - 1; k++) SHIFT[INTRO[k]] = INTRO_LENGTH - 1 - k;

/** `7501;` is far rarer than ESC in terminal output, so V8's string search runs fastest on it. */
const INTRO_TAIL = INTRODUCER.slice(2);

function findIntroducerInString(text: string, from: number): number {
  for (let q = text.indexOf(INTRO_TAIL, from + 2); q !== -1; q = text.indexOf(INTRO_TAIL, q + 1)) {
    if (text.charCodeAt(q - 1) === INTRO[1] && text.charCodeAt(q - 2) === ESC) return q - 2;
  }
  return -1;
}

function findIntroducerInBytes(bytes: Uint8Array, from: number): number {
  const last = bytes.length - INTRO_LENGTH;
  for (let i = from; i <= last; i += SHIFT[bytes[i + 6]]) {
    if (
      bytes[i + 6] === 0x3b && // ESC ] 7 5 0 1 ;
      bytes[i] === 0x1b &&
      bytes[i + 1] === 0x5d &&
      bytes[i + 2] === 0x37 &&
      bytes[i + 3] === 0x35 &&
      bytes[i + 4] === 0x30 &&
      bytes[i + 5] === 0x31
    ) {
      return i;
    }
  }
  return -1;
}

interface Sink {
  /** Units [start, end) of the current chunk are text. */
  range(start: number, end: number): void;
  /** The first `count` units of the introducer, held back earlier, were text after all. */
  heldPrefix(count: number): void;
  item(item: Parsed): void;
}

/**
 * Finds OSC 7501 sequences in raw terminal output, split anywhere across chunks (OSC7501.md §2).
 * Text passes through unchanged; a sequence's bytes never do. Capture is bounded: past the size
 * limit the body is counted, not stored, until its terminator.
 *
 * Strings are scanned as UTF-16 units, byte chunks as bytes; sizes count UTF-8 bytes either way.
 */
export class Scanner {
  /** Introducer units matched at the end of what was seen, not yet given out as text. */
  private held = 0;
  /** The held ESC ended a body: a `\` right after it completes the ST and is consumed. */
  private stPending = false;
  private inBody = false;
  private readonly body = new Uint8Array(MAX_BODY_BYTES_BEL);
  /** Body bytes counted so far; past the buffer they are counted only. */
  private bodyLength = 0;
  private decoder: Utf8Decoder | null = null;

  feed(chunk: string | Uint8Array): ScanResult {
    const items: Parsed[] = [];
    let text = '';
    if (typeof chunk === 'string') {
      this.scan(chunk, {
        range: (start, end) => (text += chunk.slice(start, end)),
        heldPrefix: (count) => (text += INTRODUCER.slice(0, count)),
        item: (item) => items.push(item),
      });
    } else {
      const decoder = (this.decoder ??= streamingUtf8Decoder());
      this.scan(chunk, {
        range: (start, end) => (text += decoder.decode(chunk.subarray(start, end), { stream: true })),
        heldPrefix: (count) => (text += decoder.decode(INTRO_BYTES.subarray(0, count), { stream: true })),
        item: (item) => items.push(item),
      });
    }
    return { items, text };
  }

  /**
   * Like `feed`, but in stream order, for a terminal that must apply text and sequences in turn.
   * Text comes back as the input's own type: byte chunks as subarrays, never decoded.
   */
  split(chunk: string): Piece<string>[];
  split(chunk: Uint8Array): Piece<Uint8Array>[];
  split(chunk: string | Uint8Array): Piece<string | Uint8Array>[] {
    const pieces: Piece<string | Uint8Array>[] = [];
    const isString = typeof chunk === 'string';
    const prefix = isString ? (n: number) => INTRODUCER.slice(0, n) : (n: number) => INTRO_BYTES.slice(0, n);
    this.scan(chunk, {
      range: isString ? (start, end) => pieces.push(chunk.slice(start, end)) : (start, end) => pieces.push(chunk.subarray(start, end)),
      heldPrefix: (count) => pieces.push(prefix(count)),
      item: (item) => pieces.push(item),
    });
    return pieces;
  }

  /**
   * Ends the stream: returns text still held back (a partial introducer, an incomplete UTF-8
   * character) and drops a sequence that never ended.
   */
  flush(): string {
    let text = '';
    if (!this.inBody && this.held > 0) {
      text = this.decoder
        ? this.decoder.decode(INTRO_BYTES.subarray(0, this.held), { stream: true })
        : INTRODUCER.slice(0, this.held);
    }
    this.held = 0;
    this.stPending = false;
    this.inBody = false;
    this.bodyLength = 0;
    if (this.decoder) text += this.decoder.decode();
    return text;
  }

  private scan(chunk: string | Uint8Array, sink: Sink) {
    const isString = typeof chunk === 'string';
    const unit = isString ? (i: number) => chunk.charCodeAt(i) : (i: number) => chunk[i];
    const find = isString
      ? (from: number) => findIntroducerInString(chunk, from)
      : (from: number) => findIntroducerInBytes(chunk, from);
    const n = chunk.length;
    let p = 0;
    let textStart = 0;
    const text = (end: number) => {
      if (end > textStart) sink.range(textStart, end);
    };

    while (p < n) {
      if (this.inBody) {
        p = this.consumeBody(unit, isString, p, n, sink);
        textStart = p;
        continue;
      }
      if (this.held > 0) {
        // An introducer begun before this point: at the end of the last chunk, or the ESC that
        // ended a body.
        if (this.stPending) {
          this.stPending = false;
          if (unit(p) === BACKSLASH) {
            this.held = 0;
            textStart = ++p;
            continue;
          }
        }
        while (this.held < INTRO_LENGTH && p < n && unit(p) === INTRO[this.held]) {
          this.held++;
          p++;
        }
        if (this.held === INTRO_LENGTH) {
          this.startBody();
          textStart = p;
          continue;
        }
        if (p === n) return;
        sink.heldPrefix(this.held);
        this.held = 0;
        textStart = p;
      }
      const found = find(p);
      if (found !== -1) {
        text(found);
        this.startBody();
        p = found + INTRO_LENGTH;
        textStart = p;
        continue;
      }
      // No whole introducer in the rest: hold back a tail that may begin one. Such a tail starts
      // at the last ESC, since the introducer holds only one.
      for (let k = 1; k <= Math.min(INTRO_LENGTH - 1, n - textStart); k++) {
        if (unit(n - k) !== ESC) continue;
        let matched = 1;
        while (matched < k && unit(n - k + matched) === INTRO[matched]) matched++;
        if (matched === k) {
          text(n - k);
          this.held = k;
          return;
        }
        break;
      }
      text(n);
      return;
    }
  }

  private startBody() {
    this.held = 0;
    this.inBody = true;
    this.bodyLength = 0;
  }

  /** Consumes body units from `p`; returns where scanning goes on. */
  private consumeBody(unit: (i: number) => number, isString: boolean, p: number, n: number, sink: Sink): number {
    for (; p < n; p++) {
      const c = unit(p);
      if (c < 0x20) {
        if (c === BEL) {
          this.dispatch('bel', sink);
          return p + 1;
        }
        if (c === ESC) {
          // ST, or an ESC that ends the sequence and begins the next escape sequence: the body is
          // complete either way. The ESC is held until the next unit tells which.
          this.dispatch('st', sink);
          this.held = 1;
          this.stPending = true;
          return p + 1;
        }
        if (c === CAN || c === SUB) {
          this.inBody = false;
          return p + 1;
        }
        // Other C0 controls are dropped and do not count.
        continue;
      }
      if (isString && c >= 0x80) {
        // Only the UTF-8 size of non-ASCII text matters: it is never valid in a key or a value.
        this.count(c < 0x800 || (c >= 0xd800 && c <= 0xdfff) ? 2 : 3);
      } else {
        if (this.bodyLength < this.body.length) this.body[this.bodyLength] = c;
        this.bodyLength++;
      }
    }
    return n;
  }

  private count(bytes: number) {
    for (let b = 0; b < bytes; b++) {
      if (this.bodyLength < this.body.length) this.body[this.bodyLength] = 0xff;
      this.bodyLength++;
    }
  }

  private dispatch(terminator: Terminator, sink: Sink) {
    this.inBody = false;
    const limit = terminator === 'bel' ? MAX_BODY_BYTES_BEL : MAX_BODY_BYTES_ST;
    sink.item(
      this.bodyLength > limit
        ? { type: 'discarded', reason: 'sequence_too_long' }
        : parseBody(this.body.subarray(0, this.bodyLength), terminator),
    );
    this.bodyLength = 0;
  }
}
