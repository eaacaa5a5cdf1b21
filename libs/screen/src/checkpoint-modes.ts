import { cursorStyleCode } from './render';
import { cursorModes, mouseEncoding, type XtermTerminal } from './xterm-internals';

/**
 * The modes a program sets that xterm's serialize addon leaves out of a checkpoint: a hidden
 * cursor (DECTCEM), the cursor's shape (DECSCUSR) and the mouse encoding (?1006, ?1016). A mirror
 * that replays a checkpoint without them starts with a visible block cursor and X10 mouse reports.
 */
export function modesBeyondSerialize(term: XtermTerminal): string {
  const cursor = cursorModes(term);
  let sequences = cursor.hidden ? '\x1b[?25l' : '';
  if (cursor.style) sequences += `\x1b[${cursorStyleCode(cursor.style, cursor.blink)} q`;
  const encoding = mouseEncoding(term);
  if (encoding === 'sgr') sequences += '\x1b[?1006h';
  else if (encoding === 'sgr_pixels') sequences += '\x1b[?1016h';
  return sequences;
}
