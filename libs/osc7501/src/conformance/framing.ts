import { BACKSLASH, BEL, CAN, ESC, INTRO, MAX_BODY_BYTES_BEL, SUB } from '../limits';
import { utf8Encode } from '../text';
import { binaryString, printable } from './escape';

/**
 * How a sequence ended: `bel`; `esc` (an ESC: ST if `\` follows, which a later `bare_esc` event
 * denies); `aborted` by CAN or SUB; `unterminated` when the output ended inside it.
 */
export type Ending = 'bel' | 'esc' | 'aborted' | 'unterminated';

/** One raw OSC 7501 sequence as the program wrote it, with the framing facts about it. */
export interface CapturedSequence {
  /** The body as a terminal keeps it (C0 controls dropped), at most 4088 bytes of it. */
  body: Uint8Array;
  /** Every body byte counted, past the stored ones too. */
  length: number;
  ending: Ending;
  /** CAN (0x18) or SUB (0x1A) for an aborted sequence. */
  abortedBy: number | null;
  /** The C0 bytes the terminal dropped: how many, and the first. */
  controls: number;
  firstControl: number | null;
  /** Body offset of the first 0x9C byte that is no part of a valid UTF-8 character. */
  strayC1: number | null;
  /** The body as written (dropped controls included), printable, at most 80 chars then `…`. */
  excerpt: string;
}

export type FramingEvent =
  | { type: 'sequence'; sequence: CapturedSequence }
  /** The ESC that ended the last sequence was not followed by `\`. */
  | { type: 'bare_esc' };

const C1_ST = 0x9c;
const EXCERPT_CHARS = 80;

const GROUND = 0;
const INTRO_MATCH = 1;
const BODY = 2;
const AFTER_ESC = 3;

/**
 * The checker's own byte-level reading of OSC7501.md §2, kept apart from the Scanner so that the
 * Scanner's hot path carries none of this bookkeeping. It finds the same sequences as the Scanner
 * and reports what the Scanner silently repairs: dropped controls, a stray C1 ST, a bare ESC.
 */
export class FramingCapture {
  private state = GROUND;
  /** Introducer bytes matched, in INTRO_MATCH. */
  private matched = 0;
  private readonly body = new Uint8Array(MAX_BODY_BYTES_BEL);
  private length = 0;
  /** One byte more than an 80-char excerpt can show, so a longer body is seen to be longer. */
  private readonly head = new Uint8Array(EXCERPT_CHARS + 1);
  private headLength = 0;
  private controls = 0;
  private firstControl: number | null = null;
  private strayC1: number | null = null;
  // UTF-8 validation of the body, for telling a stray 0x9C from one inside a character.
  private need = 0;
  private low = 0x80;
  private high = 0xbf;
  /** Body offset of a 0x9C inside the character being read: stray if that character is cut short. */
  private c1InCharacter: number | null = null;
  /** A string chunk's trailing high surrogate, kept until its pair arrives. */
  private highSurrogate = '';
  private events: FramingEvent[] = [];

  feed(chunk: string | Uint8Array): FramingEvent[] {
    if (typeof chunk === 'string') {
      let text = this.highSurrogate + chunk;
      this.highSurrogate = '';
      const last = text.charCodeAt(text.length - 1);
      if (last >= 0xd800 && last <= 0xdbff) {
        this.highSurrogate = text.slice(-1);
        text = text.slice(0, -1);
      }
      this.scan(utf8Encode(text));
    } else {
      this.flushSurrogate();
      this.scan(chunk);
    }
    return this.take();
  }

  /** The output ended: a sequence still open never ended, a trailing ESC was never ST. */
  end(): FramingEvent[] {
    this.flushSurrogate();
    if (this.state === BODY) this.dispatch('unterminated', null);
    else if (this.state === AFTER_ESC) this.events.push({ type: 'bare_esc' });
    this.state = GROUND;
    return this.take();
  }

  private take(): FramingEvent[] {
    const events = this.events;
    this.events = [];
    return events;
  }

  private flushSurrogate() {
    if (this.highSurrogate) this.scan(utf8Encode(this.highSurrogate));
    this.highSurrogate = '';
  }

  private scan(bytes: Uint8Array) {
    for (let p = 0; p < bytes.length; p++) {
      const b = bytes[p];
      switch (this.state) {
        case GROUND: {
          const esc = bytes.indexOf(ESC, p);
          if (esc === -1) return;
          p = esc;
          this.state = INTRO_MATCH;
          this.matched = 1;
          break;
        }
        case AFTER_ESC:
          if (b === BACKSLASH) {
            this.state = GROUND;
            break;
          }
          // The ESC begins the next escape sequence, which may be another introducer.
          this.events.push({ type: 'bare_esc' });
          this.matched = 1;
          this.match(b);
          break;
        case INTRO_MATCH:
          this.match(b);
          break;
        default:
          this.bodyByte(b);
      }
    }
  }

  private match(b: number) {
    if (b === INTRO[this.matched]) {
      if (++this.matched === INTRO.length) this.start();
      else this.state = INTRO_MATCH;
    } else if (b === ESC) {
      // The introducer holds one ESC, so only an ESC can begin it again.
      this.state = INTRO_MATCH;
      this.matched = 1;
    } else {
      this.state = GROUND;
    }
  }

  private start() {
    this.state = BODY;
    this.length = 0;
    this.headLength = 0;
    this.controls = 0;
    this.firstControl = null;
    this.strayC1 = null;
    this.need = 0;
    this.c1InCharacter = null;
  }

  private bodyByte(b: number) {
    if (b < 0x20) {
      if (b === BEL) return this.dispatch('bel', null);
      if (b === ESC) return this.dispatch('esc', null);
      if (b === CAN || b === SUB) return this.dispatch('aborted', b);
      this.controls++;
      this.firstControl ??= b;
      this.keepForExcerpt(b);
      return;
    }
    this.keepForExcerpt(b);
    this.checkUtf8(b);
    if (this.length < this.body.length) this.body[this.length] = b;
    this.length++;
  }

  /** Follows UTF-8 (RFC 3629 ranges) just far enough to tell whether a 0x9C belongs to a character. */
  private checkUtf8(b: number) {
    if (this.need > 0) {
      if (b >= this.low && b <= this.high) {
        if (b === C1_ST) this.c1InCharacter ??= this.length;
        this.low = 0x80;
        this.high = 0xbf;
        if (--this.need === 0) this.c1InCharacter = null;
        return;
      }
      this.brokenCharacter();
    }
    if (b >= 0xc2 && b <= 0xdf) this.lead(1, 0x80, 0xbf);
    else if (b >= 0xe0 && b <= 0xef) this.lead(2, b === 0xe0 ? 0xa0 : 0x80, b === 0xed ? 0x9f : 0xbf);
    else if (b >= 0xf0 && b <= 0xf4) this.lead(3, b === 0xf0 ? 0x90 : 0x80, b === 0xf4 ? 0x8f : 0xbf);
    else if (b === C1_ST) this.strayC1 ??= this.length;
  }

  private lead(need: number, low: number, high: number) {
    this.need = need;
    this.low = low;
    this.high = high;
  }

  /** A character cut short: a 0x9C in it was never part of a valid one. */
  private brokenCharacter() {
    if (this.c1InCharacter !== null) this.strayC1 ??= this.c1InCharacter;
    this.need = 0;
    this.c1InCharacter = null;
  }

  private keepForExcerpt(b: number) {
    if (this.headLength < this.head.length) this.head[this.headLength++] = b;
  }

  private dispatch(ending: Ending, abortedBy: number | null) {
    if (this.need > 0) this.brokenCharacter();
    const sequence: CapturedSequence = {
      body: this.body.slice(0, Math.min(this.length, this.body.length)),
      length: this.length,
      ending,
      abortedBy,
      controls: this.controls,
      firstControl: this.firstControl,
      strayC1: this.strayC1,
      excerpt: printable(binaryString(this.head.subarray(0, this.headLength)), EXCERPT_CHARS),
    };
    this.events.push({ type: 'sequence', sequence });
    this.state = ending === 'esc' ? AFTER_ESC : GROUND;
  }
}
