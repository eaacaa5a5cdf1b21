// UTF-8 and base64 helpers built on the platform's TextEncoder/TextDecoder (Node and browsers),
// because Node's Buffer is lenient where the protocol is strict (OSC7501.md §5.1).

/** The part of the WHATWG encoding API this library uses, typed here so it needs no DOM or Node types. */
export interface Utf8Decoder {
  decode(input?: Uint8Array, options?: { stream?: boolean }): string;
}
interface EncodingApi {
  TextEncoder: new () => { encode(input: string): Uint8Array };
  TextDecoder: new (label: 'utf-8', options: { fatal?: boolean; ignoreBOM?: boolean }) => Utf8Decoder;
}
const platform = globalThis as unknown as EncodingApi;

const encoder = new platform.TextEncoder();
const strictDecoder = new platform.TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** A lenient streaming decoder for passthrough text: malformed bytes become U+FFFD. */
export function streamingUtf8Decoder(): Utf8Decoder {
  return new platform.TextDecoder('utf-8', { ignoreBOM: true });
}

export function utf8Encode(text: string): Uint8Array {
  // Short ASCII text is the common case, and TextEncoder's per-call cost dwarfs a copy loop.
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x80) return encoder.encode(text);
    bytes[i] = c;
  }
  return bytes;
}

/** Decodes UTF-8, or returns null for malformed input (overlongs, surrogates, truncation). */
export function utf8DecodeStrict(bytes: Uint8Array): string | null {
  try {
    return strictDecoder.decode(bytes);
  } catch {
    return null;
  }
}

/** True when the string has no unpaired surrogate, so its UTF-8 form is lossless. */
export function isWellFormed(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (!(next >= 0xdc00 && next <= 0xdfff)) return false;
      i++;
    } else if (c >= 0xdc00 && c <= 0xdfff) {
      return false;
    }
  }
  return true;
}

/** C0 controls (TAB and LF included), DEL and C1 controls: never allowed in title or msg (§5.2). */
export function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) return true;
  }
  return false;
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const SEXTET = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) SEXTET[ALPHABET.charCodeAt(i)] = i;

/**
 * Strict standard base64 (§5.1): padding optional but correct when present, unused bits zero,
 * no URL-safe alphabet, no `=` before the end. Returns null when the text is not canonical base64.
 */
export function base64DecodeStrict(text: string): Uint8Array | null {
  let end = text.length;
  let padding = 0;
  while (end > 0 && text.charCodeAt(end - 1) === 0x3d) {
    end--;
    padding++;
  }
  if (padding > 2) return null;
  const remainder = end % 4;
  if (remainder === 1) return null;
  if (padding > 0 && (end + padding) % 4 !== 0) return null;
  const out = new Uint8Array(Math.floor((end * 3) / 4));
  let o = 0;
  let acc = 0;
  let bits = 0;
  for (let i = 0; i < end; i++) {
    const code = text.charCodeAt(i);
    const v = code < 128 ? SEXTET[code] : -1;
    if (v < 0) return null;
    acc = ((acc << 6) | v) & 0xffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (acc >> bits) & 0xff;
    }
  }
  // What is left over must be zero bits, or another encoder would give other text for these bytes.
  if ((acc & ((1 << bits) - 1)) !== 0) return null;
  return out;
}

export function base64Encode(bytes: Uint8Array): string {
  let out = '';
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
    out += ALPHABET[n >> 18] + ALPHABET[(n >> 12) & 63] + ALPHABET[(n >> 6) & 63] + ALPHABET[n & 63];
  }
  const rest = bytes.length - i;
  if (rest === 1) {
    const n = bytes[i] << 16;
    out += ALPHABET[n >> 18] + ALPHABET[(n >> 12) & 63] + '==';
  } else if (rest === 2) {
    const n = (bytes[i] << 16) | (bytes[i + 1] << 8);
    out += ALPHABET[n >> 18] + ALPHABET[(n >> 12) & 63] + ALPHABET[(n >> 6) & 63] + '=';
  }
  return out;
}
