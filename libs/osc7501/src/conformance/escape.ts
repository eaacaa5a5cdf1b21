/**
 * Bytes (one per char of `binary`) as printable ASCII for one line of a report: other bytes as
 * `\xNN`, ESC as `\e`, a backslash doubled so that no escape is ambiguous. At most `max` chars,
 * then `…`; an escape is never cut in half.
 */
export function printable(binary: string, max: number): string {
  let out = '';
  for (let i = 0; i < binary.length; i++) {
    const c = binary.charCodeAt(i);
    const piece =
      c === 0x5c ? '\\\\' : c >= 0x20 && c < 0x7f ? binary[i] : c === 0x1b ? '\\e' : '\\x' + c.toString(16).padStart(2, '0');
    if (out.length + piece.length > max) return out + '…';
    out += piece;
  }
  return out;
}

/** A byte string as a latin1 string, one char per byte. */
export function binaryString(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i++) s += String.fromCharCode(bytes[i]);
  return s;
}
