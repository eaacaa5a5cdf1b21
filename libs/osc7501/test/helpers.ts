import { Scanner, type Parsed } from '../src';

export const ESC = '\x1b';
export const ST = '\x1b\\';
export const BEL = '\x07';

/** One whole OSC 7501 sequence around `body`. */
export function osc(body: string, terminator: string = ST): string {
  return `${ESC}]7501;${body}${terminator}`;
}

/** Scans a whole stream with a fresh scanner: its items and passthrough text. */
export function scanAll(input: string | Uint8Array): { items: Parsed[]; text: string } {
  const scanner = new Scanner();
  const { items, text } = scanner.feed(input);
  return { items, text: text + scanner.flush() };
}

/** The one item a single sequence produces. */
export function scanOne(sequence: string): Parsed {
  const { items } = scanAll(sequence);
  expect(items).toHaveLength(1);
  return items[0];
}

export function b64(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64');
}

export function report(fields: Partial<Extract<Parsed, { type: 'report' }>>): Parsed {
  return { type: 'report', id: null, state: 'idle', kind: null, progress: null, app: null, title: null, msg: null, ...fields };
}
