/** The crypto of Node 20 and of every browser, typed here so pure code needs no Node types. */
declare const crypto: { getRandomValues<T extends Uint8Array>(array: T): T };

export type FenceSource = 'surface.read' | 'surface.search' | 'surface.list';

export interface FenceAttributes {
  source: FenceSource;
  /** The caller's scope; `all` when the request named none. */
  scope: 'workspace' | 'all';
  total_lines?: number;
  eof?: boolean;
  pattern?: string;
}

const CLOSING = '</untrusted_terminal_output';

/**
 * Wraps terminal text that an LLM will read so that it stays data (REFERENCE.md §9): a fresh
 * 16-hex-digit id from a cryptographic source on both tags, attributes stripped of `"<>` and line
 * breaks, and any closing tag inside the text broken with a zero-width space.
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
  const body = text.replaceAll(CLOSING, '<\u200b/untrusted_terminal_output');
  return `<untrusted_terminal_output ${rendered}>\n${body}\n</untrusted_terminal_output id="${id}">`;
}
