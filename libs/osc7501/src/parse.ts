import {
  KINDS,
  MAX_APP_BYTES,
  MAX_BODY_BYTES_BEL,
  MAX_ID_BYTES,
  MAX_ID_SEGMENTS,
  MAX_ID_SEGMENT_BYTES,
  MAX_KEY_BYTES,
  MAX_MSG_DECODED_BYTES,
  MAX_MSG_ENCODED_BYTES,
  MAX_TITLE_DECODED_BYTES,
  MAX_TITLE_ENCODED_BYTES,
  STATES,
} from './limits';
import { base64DecodeStrict, hasControlCharacter, utf8DecodeStrict, utf8Encode } from './text';
import type { DiscardReason, Kind, Parsed, State, Terminator } from './types';

/**
 * Interprets the body of one OSC 7501 sequence: the text between `7501;` and the terminator
 * (OSC7501.md §3–§7). The terminator only matters for a query, whose reply must use it.
 */
export function parse(body: string, terminator: Terminator = 'st'): Parsed {
  return parseBody(utf8Encode(body), terminator);
}

// Byte classes, indexed by byte value.
const VALUE_BYTE = new Uint8Array(256); // the value alphabet of §3.7
const NAME_BYTE = new Uint8Array(256); // app names and id segments: the value alphabet minus , / =
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.+-') {
  VALUE_BYTE[c.charCodeAt(0)] = 1;
  NAME_BYTE[c.charCodeAt(0)] = 1;
}
for (const c of ',/=') VALUE_BYTE[c.charCodeAt(0)] = 1;

const COLON = 0x3a;
const EQUALS = 0x3d;
const SLASH = 0x2f;
const QUESTION = 0x3f;

function isTrimmed(byte: number): boolean {
  // space, TAB, LF, VT, FF, CR
  return byte === 0x20 || (byte >= 0x09 && byte <= 0x0d);
}

function ascii(bytes: Uint8Array, start: number, end: number): string {
  let s = '';
  for (let i = start; i < end; i++) s += String.fromCharCode(bytes[i]);
  return s;
}

/** The known keys (§3.6). */
export const KEYS = ['state', 'kind', 'progress', 'app', 'id', 'title', 'msg'] as const;
export type Key = (typeof KEYS)[number];
const KEY_BYTES = KEYS.map((key) => Array.from(key, (c) => c.charCodeAt(0)));

/** Which known key the bytes spell, compared in place: most fields are known keys. */
function knownKey(bytes: Uint8Array, start: number, end: number): Key | null {
  const length = end - start;
  next: for (let k = 0; k < KEYS.length; k++) {
    const key = KEY_BYTES[k];
    if (key.length !== length) continue;
    for (let i = 0; i < length; i++) if (bytes[start + i] !== key[i]) continue next;
    return KEYS[k];
  }
  return null;
}

function discard(reason: DiscardReason): Parsed {
  return { type: 'discarded', reason };
}

/** Checks one id occurrence (§4); null when valid, else why the report is discarded. */
function idProblem(bytes: Uint8Array, start: number, end: number): DiscardReason | null {
  if (end - start > MAX_ID_BYTES) return 'too_long';
  let segments = 1;
  let segmentStart = start;
  for (let i = start; i <= end; i++) {
    if (i === end || bytes[i] === SLASH) {
      const length = i - segmentStart;
      if (length === 0) return 'invalid_id';
      if (length > MAX_ID_SEGMENT_BYTES) return 'too_long';
      if (i < end && ++segments > MAX_ID_SEGMENTS) return 'too_long';
      segmentStart = i + 1;
    } else if (!NAME_BYTE[bytes[i]]) {
      return 'invalid_id';
    }
  }
  return null;
}

/** Whether every character of a value (one char per byte) is in the value alphabet (§3.7). */
export function inValueAlphabet(value: string): boolean {
  for (let i = 0; i < value.length; i++) if (value.charCodeAt(i) > 0xff || !VALUE_BYTE[value.charCodeAt(i)]) return false;
  return true;
}

/** An app name or an id segment (§4): 1 to 32 bytes of `[A-Za-z0-9_.+-]`. */
export function isName(value: string): boolean {
  if (value.length === 0 || value.length > MAX_APP_BYTES) return false;
  for (let i = 0; i < value.length; i++) if (!NAME_BYTE[value.charCodeAt(i)]) return false;
  return true;
}

/** A progress value's number (§4), or null when it reads as absent. */
export function parseProgress(value: string): number | null {
  if (!/^[0-9]+$/.test(value)) return null;
  const digits = value.replace(/^0+(?=.)/, '');
  if (digits.length > 3) return null;
  const n = Number(digits);
  return n <= 100 ? n : null;
}

/** Decodes a title or msg (§5); undefined when it fails and discards the report. */
function decodeText(value: string | undefined, maxDecoded: number): string | null | undefined {
  if (value === undefined || value === '') return null;
  const bytes = base64DecodeStrict(value);
  if (bytes === null || bytes.length > maxDecoded) return undefined;
  const text = utf8DecodeStrict(bytes);
  if (text === null || hasControlCharacter(text)) return undefined;
  return text;
}

/**
 * The parser proper, over the body's UTF-8 bytes. A body longer than any terminated sequence can
 * carry is discarded here too, so that `parse` alone never accepts what a terminal would not.
 */
export function parseBody(body: Uint8Array, terminator: Terminator): Parsed {
  if (body.length === 1 && body[0] === QUESTION) return { type: 'query', terminator };
  if (body.length > MAX_BODY_BYTES_BEL) return discard('sequence_too_long');

  // The last visible occurrence of each known key.
  let state: string | undefined;
  let kind: string | undefined;
  let progress: string | undefined;
  let app: string | undefined;
  let id: string | undefined;
  let title: string | undefined;
  let msg: string | undefined;

  let fieldStart = 0;
  for (let i = 0; i <= body.length; i++) {
    if (i < body.length && body[i] !== COLON) continue;
    const fieldEnd = i;
    let eq = fieldStart;
    while (eq < fieldEnd && body[eq] !== EQUALS) eq++;
    if (eq < fieldEnd) {
      let keyStart = fieldStart;
      let keyEnd = eq;
      while (keyStart < keyEnd && isTrimmed(body[keyStart])) keyStart++;
      while (keyEnd > keyStart && isTrimmed(body[keyEnd - 1])) keyEnd--;
      if (keyEnd - keyStart > MAX_KEY_BYTES) return discard('too_long');
      let valueStart = eq + 1;
      let valueEnd = fieldEnd;
      while (valueStart < valueEnd && isTrimmed(body[valueStart])) valueStart++;
      while (valueEnd > valueStart && isTrimmed(body[valueEnd - 1])) valueEnd--;
      const key = knownKey(body, keyStart, keyEnd);
      if (key === null) {
        fieldStart = i + 1;
        continue; // unknown keys are ignored
      }
      let visible = true;
      for (let v = valueStart; v < valueEnd; v++) {
        if (!VALUE_BYTE[body[v]]) {
          visible = false;
          break;
        }
      }
      const valueLength = valueEnd - valueStart;
      switch (key) {
        case 'id': {
          // Unlike other keys, a bad id never falls back to the root record: it discards.
          if (!visible) return discard('invalid_id');
          const problem = idProblem(body, valueStart, valueEnd);
          if (problem) return discard(problem);
          id = ascii(body, valueStart, valueEnd);
          break;
        }
        case 'state':
        case 'kind':
        case 'progress':
        case 'app':
        case 'title':
        case 'msg': {
          if (!visible) break;
          const value = ascii(body, valueStart, valueEnd);
          if (key === 'state') state = value;
          else if (key === 'kind') kind = value;
          else if (key === 'progress') progress = value;
          else if (key === 'app') {
            if (valueLength > MAX_APP_BYTES) return discard('too_long');
            app = value;
          } else if (key === 'title') {
            if (valueLength > MAX_TITLE_ENCODED_BYTES) return discard('too_long');
            title = value;
          } else {
            if (valueLength > MAX_MSG_ENCODED_BYTES) return discard('too_long');
            msg = value;
          }
          break;
        }
      }
    }
    fieldStart = i + 1;
  }

  if (state === undefined || (state !== 'clear' && !(STATES as readonly string[]).includes(state))) {
    return discard('missing_or_unknown_state');
  }
  const decodedTitle = decodeText(title, MAX_TITLE_DECODED_BYTES);
  const decodedMsg = decodeText(msg, MAX_MSG_DECODED_BYTES);
  if (decodedTitle === undefined || decodedMsg === undefined) return discard('invalid_text');

  const recordId = id ?? null;
  if (state === 'clear') return { type: 'clear', id: recordId };
  const declared = state as State;
  return {
    type: 'report',
    id: recordId,
    state: declared,
    kind:
      declared === 'blocked' && kind !== undefined && (KINDS as readonly string[]).includes(kind)
        ? (kind as Kind)
        : null,
    progress:
      (declared === 'working' || declared === 'blocked') && progress !== undefined
        ? parseProgress(progress)
        : null,
    app: app !== undefined && isName(app) ? app : null,
    title: decodedTitle,
    msg: decodedMsg,
  };
}
