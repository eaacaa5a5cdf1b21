import {
  INTRODUCER,
  KINDS,
  MAX_APP_BYTES,
  MAX_MSG_DECODED_BYTES,
  MAX_TITLE_DECODED_BYTES,
  REPLY_BODY,
  STATES,
} from './limits';
import { parse } from './parse';
import { base64Encode, hasControlCharacter, isWellFormed, utf8Encode } from './text';
import type { Kind, QueryItem, State, Terminator } from './types';

/** What a program declares; absent and `null` mean the same. `clear` removes records. */
export interface ReportInput {
  state: State | 'clear';
  kind?: Kind | null;
  id?: string | null;
  progress?: number | null;
  app?: string | null;
  title?: string | null;
  msg?: string | null;
}

export interface EncodeOptions {
  terminator?: Terminator;
}

const TERMINATORS: Record<Terminator, string> = { st: '\x1b\\', bel: '\x07' };

function refuse(field: string, why: string): never {
  throw new RangeError(`OSC 7501 ${field}: ${why}`);
}

function encodeText(field: 'title' | 'msg', text: string, maxBytes: number): string {
  if (!isWellFormed(text)) refuse(field, 'contains an unpaired surrogate');
  if (hasControlCharacter(text)) refuse(field, 'contains a control character (a message is one line)');
  const bytes = utf8Encode(text);
  if (bytes.length > maxBytes) refuse(field, `is ${bytes.length} bytes of UTF-8, more than ${maxBytes}`);
  return base64Encode(bytes);
}

/**
 * Encodes a report the way a program writes it (OSC7501.md §14): fixed key order, padded base64,
 * and a RangeError for anything a terminal would discard or ignore.
 */
export function encode(report: ReportInput, options: EncodeOptions = {}): string {
  const fields: string[] = [];
  const { state } = report;
  if (state !== 'clear' && !(STATES as readonly string[]).includes(state)) {
    refuse('state', `'${String(state)}' is not one of ${STATES.join(', ')}, clear`);
  }
  fields.push(`state=${state}`);
  if (report.kind != null) {
    if (!(KINDS as readonly string[]).includes(report.kind)) refuse('kind', `'${report.kind}' is not one of ${KINDS.join(', ')}`);
    if (state !== 'blocked') refuse('kind', 'is only meaningful with state=blocked');
    fields.push(`kind=${report.kind}`);
  }
  if (report.id != null) {
    const probe = parse(`state=idle:id=${report.id}`);
    if (probe.type !== 'report' || probe.id !== report.id) {
      refuse('id', `'${report.id}' is not 1-8 segments of [A-Za-z0-9_.+-]{1,32} joined by '/', 128 bytes at most`);
    }
    fields.push(`id=${report.id}`);
  }
  if (report.progress != null) {
    if (!Number.isInteger(report.progress) || report.progress < 0 || report.progress > 100) {
      refuse('progress', `${report.progress} is not a whole number from 0 to 100`);
    }
    if (state !== 'working' && state !== 'blocked') refuse('progress', 'is only meaningful with state=working or blocked');
    fields.push(`progress=${report.progress}`);
  }
  if (report.app != null) {
    const probe = parse(`state=idle:app=${report.app}`);
    if (probe.type !== 'report' || probe.app !== report.app) {
      refuse('app', `'${report.app}' is not 1-${MAX_APP_BYTES} characters of [A-Za-z0-9_.+-]`);
    }
    fields.push(`app=${report.app}`);
  }
  if (report.title != null && report.title !== '') {
    fields.push(`title=${encodeText('title', report.title, MAX_TITLE_DECODED_BYTES)}`);
  }
  if (report.msg != null && report.msg !== '') {
    fields.push(`msg=${encodeText('msg', report.msg, MAX_MSG_DECODED_BYTES)}`);
  }
  // The largest possible report is about 3.2 KB, well inside the 4096-byte sequence limit.
  return INTRODUCER + fields.join(':') + TERMINATORS[options.terminator ?? 'st'];
}

/** The query a program sends to ask whether the terminal supports the protocol (§7). */
export function encodeQuery(terminator: Terminator = 'st'): string {
  return INTRODUCER + '?' + TERMINATORS[terminator];
}

/** The terminal's fixed capability reply, in the query's own terminator (§7.2). */
export function replyFor(query: Pick<QueryItem, 'terminator'>): string {
  return INTRODUCER + REPLY_BODY + TERMINATORS[query.terminator];
}
