/** `${name}` and `${name.item}` references in a spec string. */
export interface Reference {
  name: string;
  item: string | null;
  start: number;
  end: number;
}

/** Every reference in `text`, or the position of an unclosed `${`. */
export function references(text: string): { refs: Reference[]; unclosed: boolean } {
  const refs: Reference[] = [];
  let at = 0;
  for (;;) {
    const start = text.indexOf('${', at);
    if (start === -1) return { refs, unclosed: false };
    const end = text.indexOf('}', start + 2);
    if (end === -1) return { refs, unclosed: true };
    const body = text.slice(start + 2, end);
    const dot = body.indexOf('.');
    refs.push({ name: dot === -1 ? body : body.slice(0, dot), item: dot === -1 ? null : body.slice(dot + 1), start, end: end + 1 });
    at = end + 1;
  }
}

/** Replaces references by `value(ref)`; a reference it returns undefined for stays as it was. */
export function substitute(text: string, value: (ref: Reference) => string | undefined): string {
  const { refs } = references(text);
  let out = '';
  let at = 0;
  for (const ref of refs) {
    out += text.slice(at, ref.start) + (value(ref) ?? text.slice(ref.start, ref.end));
    at = ref.end;
  }
  return out + text.slice(at);
}
