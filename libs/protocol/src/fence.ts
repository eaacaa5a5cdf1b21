import type { Scope } from './wire';

/** The crypto of Node 20 and of every browser, typed here so pure code needs no Node types. */
declare const crypto: { getRandomValues<T extends Uint8Array>(array: T): T };

export type FenceSource = 'surface.read' | 'surface.search' | 'surface.list' | 'fleet.inbox' | 'turn.list' | 'turn.diff';

export interface FenceAttributes {
  source: FenceSource;
  /** The caller's scope; `all` when the request named none. */
  scope: Scope;
  total_lines?: number;
  eof?: boolean;
  pattern?: string;
}

const CLOSING = '</untrusted_terminal_output';
const NEUTRALISED = '<\u200b/untrusted_terminal_output';
// Characters a reader does not see (zero-width, bidi and other format controls, variation
// selectors, tags): a marker split by them still reads as the marker.
const INVISIBLE = /^\p{Default_Ignorable_Code_Point}$/u;

/** A character as the marker is compared: fullwidth forms (U+FF01–FF5E) folded to ASCII, lower case. */
function fold(char: string): string {
  const code = char.codePointAt(0)!;
  return (code >= 0xff01 && code <= 0xff5e ? String.fromCharCode(code - 0xfee0) : char).toLowerCase();
}

/** Where the closing marker that begins at `start` ends, read through invisibles, case and fullwidth forms; -1 if it does not. */
function markerEnd(text: string, start: number): number {
  let at = start;
  for (let matched = 0; matched < CLOSING.length; ) {
    if (at >= text.length) return -1;
    const char = String.fromCodePoint(text.codePointAt(at)!);
    at += char.length;
    if (matched > 0 && INVISIBLE.test(char)) continue;
    if (fold(char) !== CLOSING[matched++]) return -1;
  }
  return at;
}

/**
 * Every span that reads as a closing tag becomes the one neutralised form of REFERENCE.md §9,
 * whatever its case, the invisibles inside it or its fullwidth characters.
 */
function neutralise(text: string): string {
  const starts = /[<\uff1c]/g;
  let out = '';
  let copied = 0;
  for (let found = starts.exec(text); found; found = starts.exec(text)) {
    const end = markerEnd(text, found.index);
    if (end < 0) continue;
    out += text.slice(copied, found.index) + NEUTRALISED;
    copied = starts.lastIndex = end;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/**
 * Wraps terminal text that an LLM will read so that it stays data (REFERENCE.md §9): a fresh
 * 16-hex-digit id from a cryptographic source on both tags, attributes stripped of `"<>` and line
 * breaks, and any closing tag inside the text broken with a zero-width space (`neutralise`).
 */
export function fence(text: string, attributes: FenceAttributes): string {
  const id = [...crypto.getRandomValues(new Uint8Array(8))].map((b) => b.toString(16).padStart(2, '0')).join('');
  const clean = (value: string | number | boolean) => String(value).replace(/["<>\r\n]/g, '');
  const attrs: Array<[string, string | number | boolean | undefined]> = [
    ['source', attributes.source],
    ['scope', attributes.scope],
    ['total_lines', attributes.total_lines],
    ['eof', attributes.eof],
    ['pattern', attributes.pattern],
    ['id', id],
  ];
  const rendered = attrs
    .filter((a): a is [string, string | number | boolean] => a[1] !== undefined)
    .map(([name, value]) => `${name}="${clean(value)}"`)
    .join(' ');
  const body = neutralise(text);
  return `<untrusted_terminal_output ${rendered}>\n${body}\n</untrusted_terminal_output id="${id}">`;
}
