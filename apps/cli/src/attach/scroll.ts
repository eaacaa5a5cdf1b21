import type { KeyEvent } from '@paneflow/screen';
import type { Mode } from './frame';
import type { PaneMirror } from './mirror';

type ScrollMode = Extract<Mode, { kind: 'scroll' }>;

/**
 * What a key did in scroll mode: the mode that follows, if it changed, a note to show, and a step
 * still to come (a search that reads the host's history first).
 */
export interface ScrollStep {
  mode?: Mode;
  note?: string;
  later?: Promise<ScrollStep>;
}

/**
 * A key in scroll mode (prefix `[`): moves the focused pane's view back into its scrollback, or
 * types and finds a pattern there. Null when the key changed nothing.
 */
export function scrollKey(mirror: PaneMirror, mode: ScrollMode, event: KeyEvent): ScrollStep | null {
  if (mode.typing) {
    if (event.name === 'enter') return search(mirror, mode, mode.search ?? '', false);
    if (event.name === 'escape') return { mode: { ...mode, typing: false, search: null } };
    if (event.name === 'backspace') return { mode: { ...mode, search: (mode.search ?? '').slice(0, -1) } };
    // eslint-disable-next-line no-control-regex -- a control key is not text to search for
    if (event.sequence.length >= 1 && !/[\x00-\x1f\x7f]/.test(event.sequence)) return { mode: { ...mode, search: (mode.search ?? '') + event.sequence } };
    return null;
  }
  const page = Math.max(1, mirror.size.rows - 1);
  switch (event.name) {
    case 'up':
    case 'k':
      mirror.scroll(1);
      return {};
    case 'down':
    case 'j':
      mirror.scroll(-1);
      return {};
    case 'pageup':
    case 'ctrl-b':
      mirror.scroll(page);
      return {};
    case 'pagedown':
    case 'ctrl-f':
      mirror.scroll(-page);
      return {};
    case 'g':
      mirror.scroll(Number.MAX_SAFE_INTEGER);
      return {};
    case 'G':
      mirror.scroll(-Number.MAX_SAFE_INTEGER);
      return {};
    case '/':
      return { mode: { ...mode, typing: true, search: '' } };
    case 'n':
      return mode.search ? search(mirror, mode, mode.search, true) : null;
    case 'q':
    case 'escape':
      mirror.follow();
      return { mode: { kind: 'normal' } };
    default:
      return null;
  }
}

/**
 * Finds the pattern, case-insensitively, going back from the line shown (or the last match); not
 * in the mirror, it reads the host's deeper history and goes on there.
 */
function search(mirror: PaneMirror, mode: ScrollMode, pattern: string, again: boolean): ScrollStep {
  if (pattern === '') return { mode: { kind: 'scroll', search: null, typing: false, match: null } };
  const needle = pattern.toLowerCase();
  const from = (again && mode.match !== null ? mode.match : mirror.top + mirror.size.rows) - 1;
  for (let line = from; line >= 0; line--) {
    if (!mirror.lineText(line).toLowerCase().includes(needle)) continue;
    // The match goes in the middle of the view.
    const bottom = mirror.buffer.baseY;
    mirror.scrolledBack = Math.min(bottom, Math.max(0, bottom - (line - Math.floor(mirror.size.rows / 2))));
    return { mode: { kind: 'scroll', search: pattern, typing: false, match: line } };
  }
  const notFound: ScrollStep = { mode: { kind: 'scroll', search: pattern, typing: false, match: mode.match }, note: `not found: ${pattern}` };
  if (!mirror.historyUnread) return notFound;
  const later = mirror.showHistory().then((moved) => {
    if (moved === null) return notFound;
    // The last match's line, numbered in the history now shown.
    const match = mode.match === null ? null : mode.match + moved;
    return search(mirror, { ...mode, match }, pattern, again && match !== null);
  });
  return { mode: { kind: 'scroll', search: pattern, typing: false, match: mode.match }, note: `searching the host's history for ${pattern}…`, later };
}
