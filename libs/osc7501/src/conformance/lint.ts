import {
  KINDS,
  MAX_APP_BYTES,
  MAX_ID_BYTES,
  MAX_ID_SEGMENTS,
  MAX_ID_SEGMENT_BYTES,
  MAX_KEY_BYTES,
  MAX_MSG_DECODED_BYTES,
  MAX_MSG_ENCODED_BYTES,
  MAX_TITLE_DECODED_BYTES,
  MAX_TITLE_ENCODED_BYTES,
  STATES,
} from '../limits';
import { inValueAlphabet, isName, KEYS, parseBody, parseProgress, type Key } from '../parse';
import { base64DecodeStrict, hasControlCharacter, utf8DecodeStrict } from '../text';
import type { Parsed, Terminator } from '../types';
import { binaryString, printable } from './escape';
import type { RuleId } from './rules';

export interface LintFinding {
  rule: RuleId;
  message: string;
}


interface Field {
  key: Key;
  value: string;
  /** The value passed the alphabet check (§3.7). */
  visible: boolean;
}

// The parser's trimming (§3.4), over a body read one char per byte.
const TRIM = /^[ \t\n\v\f\r]+|[ \t\n\v\f\r]+$/g;

const DISCARDS = 'a terminal discards the whole report';
const ABSENT = 'a terminal reads it as absent';

/** A key or value quoted for a message: printable, bounded. */
function quote(text: string): string {
  return `"${printable(text, 40)}"`;
}

/** Why one id occurrence discards the report (§4), or null when it is valid. */
function idProblem(id: string): string | null {
  if (id.length > MAX_ID_BYTES) return `is ${id.length} bytes, over ${MAX_ID_BYTES}`;
  const segments = id.split('/');
  if (segments.length > MAX_ID_SEGMENTS) return `has ${segments.length} segments, over ${MAX_ID_SEGMENTS}`;
  for (const segment of segments) {
    if (segment === '') return 'has an empty segment';
    if (segment.length > MAX_ID_SEGMENT_BYTES) return `has a ${segment.length}-byte segment, over ${MAX_ID_SEGMENT_BYTES}`;
    if (!isName(segment)) return 'has a character outside [A-Za-z0-9_.+-/]';
  }
  return null;
}

/** Why the counting title or msg discards the report (§5), or null when it decodes to clean text. */
function textProblem(value: string, maxDecoded: number): { rule: RuleId; why: string } | null {
  const bytes = base64DecodeStrict(value);
  if (bytes === null) return { rule: 'text.base64', why: 'is not strict standard base64 (alphabet, padding, unused bits)' };
  if (bytes.length > maxDecoded) return { rule: 'text.decoded_too_long', why: `decodes to ${bytes.length} bytes, over ${maxDecoded}` };
  const text = utf8DecodeStrict(bytes);
  if (text === null) return { rule: 'text.utf8', why: 'decodes to malformed UTF-8' };
  if (hasControlCharacter(text)) return { rule: 'text.control', why: 'decodes to text with a control character (a message is one line)' };
  return null;
}

type Add = (rule: RuleId, message: string) => void;

/**
 * The field-level lint of one body (OSC7501.md §3–§7): every problem, not just the first, each
 * naming what a terminal does with it. The verdict itself is `parseBody`'s, returned alongside, so
 * the checker never disagrees with the parser.
 */
export function lintBody(body: Uint8Array, terminator: Terminator): { parsed: Parsed; findings: LintFinding[] } {
  const parsed = parseBody(body, terminator);
  const findings: LintFinding[] = [];
  const add: Add = (rule, message) => findings.push({ rule, message });
  if (parsed.type === 'query') return { parsed, findings };
  const text = binaryString(body);
  if (parsed.type === 'discarded' && text.replace(TRIM, '').startsWith('?')) {
    add('query.malformed', `${quote(text)} is not a query (the body must be exactly "?"): no reply, ${DISCARDS}`);
  } else if (text === '') {
    add('state.missing', `empty body: ${DISCARDS}`);
  } else {
    const fields = readFields(text, add);
    checkLimits(fields, add);
    const state = checkState(fields, add);
    checkOccurrences(fields, state, add);
    checkValues(fields, state, add);
  }
  return { parsed, findings };
}

/** Splits and trims as the parser does (§3.1–§3.6); returns the fields of known keys. */
function readFields(text: string, add: Add): Field[] {
  const fields: Field[] = [];
  let empty = 0;
  for (const raw of text.split(':')) {
    if (raw === '') {
      empty++;
      continue;
    }
    const eq = raw.indexOf('=');
    if (eq === -1) {
      add('grammar.no_equals', `field ${quote(raw)} has no "=": a terminal skips it`);
      continue;
    }
    const rawKey = raw.slice(0, eq);
    const rawValue = raw.slice(eq + 1);
    const key = rawKey.replace(TRIM, '');
    const value = rawValue.replace(TRIM, '');
    if (key.length !== rawKey.length || value.length !== rawValue.length) {
      add('grammar.whitespace', `whitespace around the key or value of ${quote(raw)}: a terminal trims it`);
    }
    if (key.length > MAX_KEY_BYTES) {
      add('grammar.key_too_long', `key ${quote(key)} is ${key.length} bytes, over ${MAX_KEY_BYTES}: ${DISCARDS}`);
    } else if ((KEYS as readonly string[]).includes(key)) {
      fields.push({ key: key as Key, value, visible: inValueAlphabet(value) });
    } else {
      const what = key === '' ? `empty key (field ${quote(raw)})` : `unknown key ${quote(key)}`;
      add('grammar.unknown_key', `${what}: a terminal ignores the field`);
    }
  }
  if (empty > 0) add('grammar.empty_field', `${empty} empty field(s) ("::" or ":" at an end): a terminal skips them`);
  return fields;
}

const occurrences = (fields: Field[], key: Key) => fields.filter((field) => field.key === key);
const lastVisible = (fields: Field[], key: Key) => occurrences(fields, key).findLast((field) => field.visible);

/** §6.3, §3.9: limits hold for every visible occurrence, even one a later field replaces; any bad id discards. */
function checkLimits(fields: Field[], add: Add) {
  const replaced = (field: Field) =>
    field !== occurrences(fields, field.key).at(-1) ? ' (a later one replaces it, but limits apply to every occurrence)' : '';
  for (const field of fields) {
    if (field.key === 'id') {
      const problem = field.visible ? idProblem(field.value) : 'has a byte outside [A-Za-z0-9_.+-/]';
      if (problem) add('id.invalid', `id ${quote(field.value)} ${problem}: ${DISCARDS} (it never falls back to the root record)`);
    } else if (field.visible && field.key === 'app' && field.value.length > MAX_APP_BYTES) {
      add('app.too_long', `app is ${field.value.length} bytes, over ${MAX_APP_BYTES}${replaced(field)}: ${DISCARDS}`);
    } else if (field.visible && (field.key === 'title' || field.key === 'msg')) {
      const max = field.key === 'title' ? MAX_TITLE_ENCODED_BYTES : MAX_MSG_ENCODED_BYTES;
      if (field.value.length > max) {
        add('text.encoded_too_long', `${field.key} is ${field.value.length} encoded bytes, over ${max}${replaced(field)}: ${DISCARDS}`);
      }
    }
  }
}

/** The state that counts (§4), or null when there is none and the report is discarded. */
function checkState(fields: Field[], add: Add): string | null {
  const field = lastVisible(fields, 'state');
  if (field === undefined) {
    const hidden = occurrences(fields, 'state').at(-1);
    const why = hidden ? `state ${quote(hidden.value)} has a byte outside [A-Za-z0-9_.,+/=-], so there is no state` : 'no state field';
    add('state.missing', `${why}: ${DISCARDS}`);
  } else if (field.value === '') {
    add('state.missing', `state is empty: ${DISCARDS}`);
  } else if (field.value !== 'clear' && !(STATES as readonly string[]).includes(field.value)) {
    add('state.unknown', `state ${quote(field.value)} is not one of ${STATES.join(', ')}, clear: ${DISCARDS}`);
  } else {
    return field.value;
  }
  return null;
}

/** Why a key is meaningless with this state (§4, §8.4), or null when it counts. */
function moot(key: Key, state: string | null): 'clear.extra_keys' | 'kind.ignored' | 'progress.ignored' | null {
  if (state === null || key === 'state' || key === 'id') return null;
  if (state === 'clear') return 'clear.extra_keys';
  if (key === 'kind' && state !== 'blocked') return 'kind.ignored';
  if (key === 'progress' && state !== 'working' && state !== 'blocked') return 'progress.ignored';
  return null;
}

const MOOT_MESSAGE = {
  'clear.extra_keys': (key: Key) => `${key} on a clear: a terminal ignores it`,
  'kind.ignored': (_key: Key, state: string) => `kind on state ${state}: a terminal ignores it (kind is for blocked only)`,
  'progress.ignored': (_key: Key, state: string) => `progress on state ${state}: a terminal ignores it (it is for working and blocked only)`,
};

/**
 * Per key: meaningless with this state, repeated (§3.8), or its last occurrence invisible (§3.7).
 * A key the state makes meaningless gets that one warning and nothing about its values.
 */
function checkOccurrences(fields: Field[], state: string | null, add: Add) {
  for (const key of KEYS) {
    const all = occurrences(fields, key);
    if (all.length === 0) continue;
    const mootRule = moot(key, state);
    if (mootRule !== null) {
      add(mootRule, MOOT_MESSAGE[mootRule](key, state!));
      continue;
    }
    if (all.length > 1) add('grammar.repeated_key', `key ${key} appears ${all.length} times: a terminal uses only the last visible one`);
    const last = all.at(-1)!;
    const earlier = lastVisible(fields, key);
    // An invisible id discards (checkLimits); a state with no visible occurrence is checkState's.
    if (!last.visible && key !== 'id' && (key !== 'state' || earlier !== undefined)) {
      const fallback = earlier ? 'uses an earlier one' : 'reads it as absent';
      add('grammar.value_alphabet', `${key} value ${quote(last.value)} has a byte outside [A-Za-z0-9_.,+/=-]: a terminal skips the field and ${fallback}`);
    }
  }
}

/** The values that count, by the rules of their key (§4, §5). */
function checkValues(fields: Field[], state: string | null, add: Add) {
  const kind = lastVisible(fields, 'kind');
  if (state === 'blocked' && kind !== undefined && !(KINDS as readonly string[]).includes(kind.value)) {
    add('kind.unknown', `kind ${quote(kind.value)} is not one of ${KINDS.join(', ')}: ${ABSENT}`);
  } else if (state === 'blocked' && occurrences(fields, 'kind').length === 0) {
    add('kind.missing', `blocked without kind: a terminal cannot tell whether the program waits for ${KINDS.join(', ')}`);
  }
  const progress = lastVisible(fields, 'progress');
  if (progress !== undefined && (state === 'working' || state === 'blocked')) {
    if (parseProgress(progress.value) === null) {
      add('progress.invalid', `progress ${quote(progress.value)} is not a whole number 0-100 in digits: ${ABSENT}`);
    }
  }
  const app = lastVisible(fields, 'app');
  if (app !== undefined && moot('app', state) === null && app.value.length <= MAX_APP_BYTES && !isName(app.value)) {
    const why = app.value === '' ? 'is empty' : `${quote(app.value)} has a character outside [A-Za-z0-9_.+-]`;
    add('app.invalid', `app ${why}: ${ABSENT}`);
  }
  for (const key of ['title', 'msg'] as const) {
    const field = lastVisible(fields, key);
    // Only the counting occurrence is decoded (§5.4); one too long to decode is checkLimits'.
    if (field === undefined || field.value.length > (key === 'title' ? MAX_TITLE_ENCODED_BYTES : MAX_MSG_ENCODED_BYTES)) continue;
    const counts = moot(key, state) === null;
    if (field.value === '') {
      if (counts) add('text.empty', `${key} is empty: ${ABSENT}`);
      continue;
    }
    const problem = textProblem(field.value, key === 'title' ? MAX_TITLE_DECODED_BYTES : MAX_MSG_DECODED_BYTES);
    if (problem) add(problem.rule, `${key} ${quote(field.value)} ${problem.why}: ${DISCARDS}`);
    else if (counts && field.value.length % 4 !== 0) {
      add('text.unpadded', `${key} ${quote(field.value)} has no base64 padding: accepted, but encoders pad (§14)`);
    }
  }
}
