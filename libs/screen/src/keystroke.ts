// How input reaches a program (REFERENCE.md §4.4, §4.5) as bytes, given the modes that decide them
// (bracketed paste, cursor keys): the host writes them knowing its terminal's modes at that moment,
// and `paneflow osc check` types its script with them.
// A refusal quotes what it refuses as a face shows it (`shown`): never a raw ESC back to a terminal.
import { sanitizeForGrid as shown } from './text';

const PASTE_START = '\x1b[200~';
const PASTE_END = '\x1b[201~';

/** Text as one bracketed paste; markers inside it are removed so that it cannot end the paste early. */
export function bracketedPaste(text: string): string {
  return PASTE_START + text.replaceAll(PASTE_START, '').replaceAll(PASTE_END, '') + PASTE_END;
}

/**
 * `[ctrl-|alt-|shift-]*<name>` to the bytes a terminal sends (REFERENCE.md §4.5). Cursor keys follow
 * the program's cursor-key mode. Keys that would submit (enter, return, ctrl-m, ctrl-j, anything
 * whose bytes hold CR or LF) are refused: `surface.send_keystroke` must never answer a prompt.
 */
export class KeystrokeError extends Error {}

const CURSOR: Record<string, string> = { up: 'A', down: 'B', right: 'C', left: 'D', home: 'H', end: 'F' };
const TILDE: Record<string, number> = { insert: 2, delete: 3, pageup: 5, pagedown: 6, f5: 15, f6: 17, f7: 18, f8: 19, f9: 20, f10: 21, f11: 23, f12: 24 };
const SS3_FUNCTION: Record<string, string> = { f1: 'P', f2: 'Q', f3: 'R', f4: 'S' };
const SUBMIT = new Set(['enter', 'return']);

export function keystrokeBytes(keystroke: string, applicationCursorKeys: boolean): string {
  const parts = keystroke.split('-');
  // A trailing '-' is the minus key: "ctrl--" splits into ['ctrl', '', ''].
  let name = parts.pop()!;
  if (name === '' && parts[parts.length - 1] === '') {
    parts.pop();
    name = '-';
  }
  const mods = { ctrl: false, alt: false, shift: false };
  for (const part of parts) {
    const mod = part.toLowerCase();
    if (mod !== 'ctrl' && mod !== 'alt' && mod !== 'shift') throw new KeystrokeError(`unknown modifier '${shown(part)}' in '${shown(keystroke)}'`);
    mods[mod] = true;
  }
  const lower = name.length > 1 ? name.toLowerCase() : name;
  if (SUBMIT.has(lower)) throw new KeystrokeError(`'${shown(keystroke)}' would submit; send text with --submit instead`);
  const modifier = 1 + (mods.shift ? 1 : 0) + (mods.alt ? 2 : 0) + (mods.ctrl ? 4 : 0);
  let bytes: string;
  if (lower in CURSOR) {
    const final = CURSOR[lower];
    bytes = modifier > 1 ? `\x1b[1;${modifier}${final}` : applicationCursorKeys ? `\x1bO${final}` : `\x1b[${final}`;
  } else if (lower in TILDE) {
    bytes = modifier > 1 ? `\x1b[${TILDE[lower]};${modifier}~` : `\x1b[${TILDE[lower]}~`;
  } else if (lower in SS3_FUNCTION) {
    bytes = modifier > 1 ? `\x1b[1;${modifier}${SS3_FUNCTION[lower]}` : `\x1bO${SS3_FUNCTION[lower]}`;
  } else {
    let base: string;
    if (lower === 'space') base = ' ';
    else if (lower === 'tab') base = mods.shift ? '\x1b[Z' : '\t';
    else if (lower === 'escape' || lower === 'esc') base = '\x1b';
    else if (lower === 'backspace') base = mods.ctrl ? '\x08' : '\x7f';
    else if ([...name].length === 1 && name >= ' ' && name <= '~') base = mods.shift && /[a-z]/.test(name) ? name.toUpperCase() : name;
    else throw new KeystrokeError(`unknown key '${shown(name)}' in '${shown(keystroke)}'`);
    if (mods.ctrl && base.length === 1 && lower !== 'backspace') {
      const c = base.toUpperCase().charCodeAt(0);
      if (base === ' ' || base === '@') base = '\x00';
      else if (base === '?') base = '\x7f';
      else if (c >= 0x40 && c <= 0x5f) base = String.fromCharCode(c & 0x1f);
      else throw new KeystrokeError(`ctrl-${shown(name)} has no control code`);
    }
    bytes = (mods.alt ? '\x1b' : '') + base;
  }
  if (/[\r\n]/.test(bytes)) throw new KeystrokeError(`'${shown(keystroke)}' would submit (its bytes hold CR or LF)`);
  return bytes;
}
