const utf8Length = (codePoint: number) => (codePoint < 0x80 ? 1 : codePoint < 0x800 ? 2 : codePoint < 0x10000 ? 3 : 4);

/** The longest prefix of `text` within `maxBytes` of UTF-8, cut on a character boundary. */
export function cutUtf8(text: string, maxBytes: number): string {
  let bytes = 0;
  let end = 0;
  for (const char of text) {
    bytes += utf8Length(char.codePointAt(0)!);
    if (bytes > maxBytes) break;
    end += char.length;
  }
  return text.slice(0, end);
}
