/** One key as the terminal sent it. */
export interface KeyEvent {
  type: 'key';
  /** The exact text of the key (an escape sequence, a control character or one character). */
  sequence: string;
  /** The key with its modifiers, e.g. 'a', 'A', 'enter', 'ctrl-b', 'alt-x', 'ctrl-shift-up', 'f5'; null when unknown. */
  name: string | null;
  /** The key without modifiers, e.g. 'b', 'up', 'f5'; null when unknown. */
  key: string | null;
  ctrl: boolean;
  alt: boolean;
  shift: boolean;
}

export type MouseButton =
  | 'left'
  | 'middle'
  | 'right'
  | 'none'
  | 'wheel-up'
  | 'wheel-down'
  | 'wheel-left'
  | 'wheel-right'
  | 'button8'
  | 'button9'
  | 'button10'
  | 'button11';

/** An SGR (1006) mouse report. `drag` is motion with a button held, `move` motion without. */
export interface MouseEvent {
  type: 'mouse';
  action: 'press' | 'release' | 'drag' | 'move' | 'wheel';
  button: MouseButton;
  /** 1-based column and row of the outer terminal. */
  x: number;
  y: number;
  shift: boolean;
  alt: boolean;
  ctrl: boolean;
}

export interface PasteEvent {
  type: 'paste';
  /** What came between ESC [ 200 ~ and ESC [ 201 ~. */
  text: string;
}

export interface FocusEvent {
  type: 'focus';
  focused: boolean;
}

export type InputEvent = KeyEvent | MouseEvent | PasteEvent | FocusEvent;

interface Utf8Decoder {
  decode(input?: Uint8Array, options?: { stream?: boolean }): string;
}
const platform = globalThis as unknown as { TextDecoder: new (label: 'utf-8', options: { ignoreBOM?: boolean }) => Utf8Decoder };

const ESC = '\x1b';
const PASTE_START = `${ESC}[200~`;
const PASTE_END = `${ESC}[201~`;
// A CSI or SS3 that has not ended after this many characters is not going to: pass it on.
const MAX_SEQUENCE = 64;
/** Held until its end comes; past this size a string sequence (OSC, DCS, …) is passed on as it is. */
const MAX_STRING_SEQUENCE = 4096;

const CSI_KEYS: Record<string, string> = { A: 'up', B: 'down', C: 'right', D: 'left', E: 'begin', F: 'end', H: 'home', P: 'f1', Q: 'f2', R: 'f3', S: 'f4', Z: 'tab' };
const SS3_KEYS: Record<string, string> = { ...CSI_KEYS, M: 'enter' };
const TILDE_KEYS: Record<string, string> = {
  1: 'home',
  2: 'insert',
  3: 'delete',
  4: 'end',
  5: 'pageup',
  6: 'pagedown',
  7: 'home',
  8: 'end',
  11: 'f1',
  12: 'f2',
  13: 'f3',
  14: 'f4',
  15: 'f5',
  17: 'f6',
  18: 'f7',
  19: 'f8',
  20: 'f9',
  21: 'f10',
  23: 'f11',
  24: 'f12',
};
const WHEEL_BUTTONS: MouseButton[] = ['wheel-up', 'wheel-down', 'wheel-left', 'wheel-right'];
const PLAIN_BUTTONS: MouseButton[] = ['left', 'middle', 'right', 'none'];
const EXTRA_BUTTONS: MouseButton[] = ['button8', 'button9', 'button10', 'button11'];

function keyEvent(sequence: string, key: string | null, ctrl = false, alt = false, shift = false): KeyEvent {
  const name = key === null ? null : `${ctrl ? 'ctrl-' : ''}${alt ? 'alt-' : ''}${shift ? 'shift-' : ''}${key}`;
  return { type: 'key', sequence, name, key, ctrl, alt, shift };
}

/** A key that is one character: a control character, DEL, or a printable character. */
function characterKey(sequence: string): KeyEvent {
  const code = sequence.codePointAt(0)!;
  if (code === 0x0d) return keyEvent(sequence, 'enter');
  if (code === 0x09) return keyEvent(sequence, 'tab');
  if (code === 0x7f) return keyEvent(sequence, 'backspace');
  if (code === 0x1b) return keyEvent(sequence, 'escape');
  if (code === 0x00) return keyEvent(sequence, 'space', true);
  if (code < 0x1b) return keyEvent(sequence, String.fromCharCode(code + 0x60), true);
  if (code < 0x20) return keyEvent(sequence, String.fromCharCode(code + 0x40), true);
  if (code === 0x20) return keyEvent(sequence, 'space');
  if (code >= 0x80 && code < 0xa0) return keyEvent(sequence, null);
  return keyEvent(sequence, sequence);
}

/** Applies an xterm modifier parameter (1 + shift 1, alt 2, ctrl 4); null for other modifiers. */
function modifiedKey(sequence: string, key: string, modifier: number): KeyEvent {
  const bits = modifier - 1;
  if (!Number.isInteger(bits) || bits < 0 || bits > 7) return keyEvent(sequence, null);
  return keyEvent(sequence, key, (bits & 4) !== 0, (bits & 2) !== 0, (bits & 1) !== 0);
}

function csiKey(sequence: string, params: string, final: string): KeyEvent {
  const fields = params.split(';');
  const modifier = fields.length > 1 ? Number(fields[1]) : 1;
  if (final === '~') {
    const key = TILDE_KEYS[fields[0]];
    return key ? modifiedKey(sequence, key, modifier) : keyEvent(sequence, null);
  }
  const key = CSI_KEYS[final];
  if (!key || (fields[0] !== '' && fields[0] !== '1')) return keyEvent(sequence, null);
  if (final === 'Z') return keyEvent(sequence, 'tab', false, false, true);
  return modifiedKey(sequence, key, modifier);
}

function sgrMouse(body: string, final: string): MouseEvent | null {
  const match = /^(\d{1,4});(\d{1,5});(\d{1,5})$/.exec(body);
  if (!match) return null;
  const code = Number(match[1]);
  const low = code & 3;
  const wheel = (code & 64) !== 0;
  const button = wheel ? WHEEL_BUTTONS[low] : code & 128 ? EXTRA_BUTTONS[low] : PLAIN_BUTTONS[low];
  let action: MouseEvent['action'];
  if (final === 'm') action = 'release';
  else if (wheel) action = 'wheel';
  else if (code & 32) action = button === 'none' ? 'move' : 'drag';
  else action = 'press';
  return { type: 'mouse', action, button, x: Number(match[2]), y: Number(match[3]), shift: (code & 4) !== 0, alt: (code & 8) !== 0, ctrl: (code & 16) !== 0 };
}

/** Where an escape sequence ends and what it is; `incomplete` when more input may finish it. */
type Parsed = { end: number; event: InputEvent } | 'incomplete';

/**
 * Splits what a terminal sends in raw mode into keys, pastes, mouse reports and focus changes.
 * Feed it chunks as they arrive; sequences split across chunks are put back together. A lone
 * ESC may be the Escape key or the start of a sequence: when `pendingEscape` is true after a
 * feed, wait a little (~25 ms) for more input, then call `flush` to take what is held as keys.
 * Unknown sequences come out as keys with a null name, never dropped.
 */
export class InputParser {
  private held = '';
  private paste: string[] | null = null;
  private readonly decoder = new platform.TextDecoder('utf-8', { ignoreBOM: true });

  /** Whether the parser holds the start of an escape sequence that only more input or `flush` ends. */
  get pendingEscape(): boolean {
    return this.paste === null && this.held.startsWith(ESC);
  }

  feed(chunk: string | Uint8Array): InputEvent[] {
    const text = typeof chunk === 'string' ? chunk : this.decoder.decode(chunk, { stream: true });
    return this.parse(this.held + text, false);
  }

  /** Takes whatever is held as keys (a lone ESC is the Escape key). A paste still open stays open. */
  flush(): InputEvent[] {
    return this.paste === null ? this.parse(this.held, true) : [];
  }

  private parse(data: string, final: boolean): InputEvent[] {
    const events: InputEvent[] = [];
    this.held = '';
    let i = 0;
    while (i < data.length) {
      if (this.paste !== null) {
        const end = data.indexOf(PASTE_END, i);
        if (end === -1) {
          const kept = partialSuffix(data, PASTE_END);
          this.paste.push(data.slice(i, data.length - kept));
          this.held = data.slice(data.length - kept);
          return events;
        }
        this.paste.push(data.slice(i, end));
        events.push({ type: 'paste', text: this.paste.join('') });
        this.paste = null;
        i = end + PASTE_END.length;
        continue;
      }
      const code = data.charCodeAt(i);
      if (isHighSurrogate(code) && i + 1 === data.length && !final) {
        // Half a surrogate pair: a string chunk was cut inside a character.
        this.held = data.slice(i);
        return events;
      }
      if (code !== 0x1b) {
        const length = data.codePointAt(i)! > 0xffff ? 2 : 1;
        events.push(characterKey(data.slice(i, i + length)));
        i += length;
        continue;
      }
      if (data.startsWith(PASTE_START, i)) {
        this.paste = [];
        i += PASTE_START.length;
        continue;
      }
      const parsed = this.escape(data, i, final);
      if (parsed === 'incomplete') {
        this.held = data.slice(i);
        return events;
      }
      events.push(parsed.event);
      i = parsed.end;
    }
    return events;
  }

  /** The escape sequence at data[start] (an ESC). */
  private escape(data: string, start: number, final: boolean): Parsed {
    const next = start + 1;
    if (next >= data.length) return final ? { end: next, event: characterKey(ESC) } : 'incomplete';
    const introducer = data[next];
    if (introducer === '[') return this.csi(data, start, final);
    if (introducer === 'O') {
      if (next + 1 >= data.length) return final ? altKey(data, start, next) : 'incomplete';
      const key = SS3_KEYS[data[next + 1]];
      const code = data.charCodeAt(next + 1);
      if (code >= 0x40 && code <= 0x7e) return { end: next + 2, event: keyEvent(data.slice(start, next + 2), key ?? null) };
      return altKey(data, start, next);
    }
    if (introducer === ']' || introducer === 'P' || introducer === '_' || introducer === '^' || introducer === 'X') {
      const end = stringSequenceEnd(data, next + 1);
      if (end > 0) return { end, event: keyEvent(data.slice(start, end), null) };
      // No terminator yet: held while nothing follows or an ST may be half here, else it was Alt
      // with that key (a terminal sends its replies whole; people type one key at a time).
      if ((next + 1 >= data.length || end === SPLIT_TERMINATOR) && !final) return 'incomplete';
      if (data.length - start > MAX_STRING_SEQUENCE) return { end: data.length, event: keyEvent(data.slice(start), null) };
      return altKey(data, start, next);
    }
    if (introducer === ESC) {
      if (next + 1 >= data.length) return final ? { end: next + 1, event: keyEvent(data.slice(start, next + 1), 'escape', false, true) } : 'incomplete';
      if (data[next + 1] === '[' || data[next + 1] === 'O') {
        const inner = this.escape(data, next, final);
        if (inner === 'incomplete') return inner;
        // Alt with a key it knows; anything else after the first ESC is parsed on its own.
        if (inner.event?.type !== 'key' || inner.event.key === null) return { end: next, event: characterKey(ESC) };
        const { key, ctrl, shift } = inner.event;
        return { end: inner.end, event: keyEvent(data.slice(start, inner.end), key, ctrl, true, shift) };
      }
    }
    if (isHighSurrogate(data.charCodeAt(next)) && next + 1 === data.length && !final) return 'incomplete';
    return altKey(data, start, next);
  }

  private csi(data: string, start: number, final: boolean): Parsed {
    const bodyStart = start + 2;
    let i = bodyStart;
    while (i < data.length && data.charCodeAt(i) >= 0x30 && data.charCodeAt(i) <= 0x3f) i++;
    while (i < data.length && data.charCodeAt(i) >= 0x20 && data.charCodeAt(i) <= 0x2f) i++;
    if (i >= data.length) {
      if (i === bodyStart && final) return altKey(data, start, start + 1);
      if (final || i - start > MAX_SEQUENCE) return { end: i, event: keyEvent(data.slice(start, i), null) };
      return 'incomplete';
    }
    const code = data.charCodeAt(i);
    // Not a final byte: what came so far is passed on, and parsing goes on from this character.
    if (code < 0x40 || code > 0x7e) return { end: i, event: keyEvent(data.slice(start, i), i === bodyStart ? '[' : null, false, i === bodyStart) };
    const end = i + 1;
    const sequence = data.slice(start, end);
    const body = data.slice(bodyStart, i);
    const finalByte = data[i];
    if (body === '' && (finalByte === 'I' || finalByte === 'O')) return { end, event: { type: 'focus', focused: finalByte === 'I' } };
    if (body.startsWith('<') && (finalByte === 'M' || finalByte === 'm')) {
      return { end, event: sgrMouse(body.slice(1), finalByte) ?? keyEvent(sequence, null) };
    }
    if (!/^[\d;]*$/.test(body)) return { end, event: keyEvent(sequence, null) };
    return { end, event: csiKey(sequence, body, finalByte) };
  }
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code < 0xdc00;

/** ESC followed by the character at `at`: that key with Alt. */
function altKey(data: string, start: number, at: number): Parsed {
  const length = data.codePointAt(at)! > 0xffff ? 2 : 1;
  const end = at + length;
  const inner = characterKey(data.slice(at, end));
  return { end, event: keyEvent(data.slice(start, end), inner.key, inner.ctrl, true, inner.shift) };
}

const SPLIT_TERMINATOR = -2;

/**
 * The index after the BEL or ST that ends a string sequence whose body starts at `from`: -1 when
 * there is none, `SPLIT_TERMINATOR` when the data ends with the ESC of what may be an ST.
 */
function stringSequenceEnd(data: string, from: number): number {
  for (let i = from; i < data.length; i++) {
    const code = data.charCodeAt(i);
    if (code === 0x07) return i + 1;
    if (code === 0x1b) return i + 1 === data.length ? SPLIT_TERMINATOR : data[i + 1] === '\\' ? i + 2 : -1;
  }
  return -1;
}

/** How many characters at the end of `data` could be the start of `marker`. */
function partialSuffix(data: string, marker: string): number {
  for (let length = Math.min(marker.length - 1, data.length); length > 0; length--) {
    if (data.endsWith(marker.slice(0, length))) return length;
  }
  return 0;
}
