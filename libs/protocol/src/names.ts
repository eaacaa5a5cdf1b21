/** A pane as name matching sees it. */
export interface Named {
  surface_id: number;
  name: string | null;
}

/**
 * The panes a name selects (REFERENCE.md §4.2, §8): the exact name, else the name in any case,
 * else the names it is a case-insensitive prefix of. The first stage that finds any decides;
 * more than one match is the caller's to refuse (`stage` says which kind it was).
 */
export function matchName<T extends Named>(surfaces: T[], name: string): { matches: T[]; stage: 'exact' | 'any_case' | 'prefix' } | null {
  const lower = name.toLowerCase();
  const stages = [
    ['exact', (s: T) => s.name === name],
    ['any_case', (s: T) => s.name?.toLowerCase() === lower],
    ['prefix', (s: T) => !!s.name?.toLowerCase().startsWith(lower)],
  ] as const;
  for (const [stage, test] of stages) {
    const matches = surfaces.filter(test);
    if (matches.length > 0) return { matches, stage };
  }
  return null;
}

/** A name is a label for a person and a selector for a script: a line of a sidebar, not a document. */
export const MAX_NAME_CHARS = 128;

// C0 controls, DEL and C1 controls: a name is printed into terminals (ps, attach, titles), where
// any of them could start an escape sequence.
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
// The line and paragraph separators break a line as LF does.
const LINE_BREAK = /[\u2028\u2029]/;
// Nothing a person could see or type back: white space, invisible format characters, fillers.
const BLANK = /^[\p{White_Space}\p{Default_Ignorable_Code_Point}]*$/u;
/** How a selector is read (REFERENCE.md §4.2), before any pane is looked at: its rule, and the text that rule matches. */
export function selectorKind(selector: string): { kind: 'surface_id' | 'cmdline' | 'cwd' | 'name'; text: string } {
  if (/^\d+$/.test(selector)) return { kind: 'surface_id', text: selector };
  if (selector.startsWith('cmdline:')) return { kind: 'cmdline', text: selector.slice('cmdline:'.length) };
  if (selector.startsWith('cwd:')) return { kind: 'cwd', text: selector.slice('cwd:'.length) };
  return { kind: 'name', text: selector };
}

/** What a selector that is not a name reads its text as, for a name refused for looking like one. */
const READ_AS = { surface_id: 'an id or an index', cmdline: 'a command line', cwd: 'a directory' } as const;

/** Why a name cannot be used: `reason` for a refusal's `data.reason`, `message` in a person's words. */
export interface NameFault {
  reason: 'control_character' | 'name_too_long' | 'unselectable_name';
  message: string;
}

function codePointAt(name: string, at: number): string {
  const code = name.charCodeAt(at).toString(16).toUpperCase().padStart(4, '0');
  return `U+${code} (at character ${[...name.slice(0, at)].length + 1})`;
}

/**
 * Why `name` cannot be a pane or workspace name, or null when it can: too long, a control
 * character or a line break, or a name no selector could reach (all digits, which selectors read
 * as an id or an index; `cmdline:` or `cwd:` first; nothing visible). The message names a
 * character by code point and never quotes the name: echoing it would print what is refused.
 */
export function nameFault(name: string): NameFault | null {
  const length = [...name].length;
  if (length > MAX_NAME_CHARS) return { reason: 'name_too_long', message: `has ${length} characters; names may have at most ${MAX_NAME_CHARS}` };
  const control = name.search(CONTROL);
  if (control >= 0) return { reason: 'control_character', message: `holds the control character ${codePointAt(name, control)}; names may not hold control characters` };
  const lineBreak = name.search(LINE_BREAK);
  if (lineBreak >= 0) return { reason: 'control_character', message: `holds the line separator ${codePointAt(name, lineBreak)}; a name is one line` };
  const unselectable = (why: string): NameFault => ({ reason: 'unselectable_name', message: `${why}; no selector could name it` });
  const { kind } = selectorKind(name);
  if (kind === 'surface_id') return unselectable(`is all digits, which a selector reads as ${READ_AS[kind]}`);
  if (kind !== 'name') return unselectable(`starts with '${kind}:', which a selector reads as ${READ_AS[kind]}`);
  if (/^@[^:]*:/.test(name)) return unselectable(`starts with '@…:', which a selector reads as another machine's pane`);
  if (BLANK.test(name)) return unselectable('shows nothing (only white space or invisible characters)');
  return null;
}
