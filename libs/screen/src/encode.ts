import type { Rect } from './grid';
import type { KeyEvent, MouseButton, MouseEvent } from './input';

/** Which mouse events a program asked for: ?9 (x10), ?1000 (vt200), ?1002 (drag), ?1003 (any). */
export type MouseTracking = 'none' | 'x10' | 'vt200' | 'drag' | 'any';

/** The modes of a pane's program that decide how input reaches it, as its terminal set them. */
export interface PaneModes {
  /** DECCKM (?1): arrows, Home and End as SS3 instead of CSI. */
  applicationCursorKeys: boolean;
  /** ?1004: focus in and out are reported. */
  sendFocus: boolean;
  mouseTracking: MouseTracking;
  /** ?1006 gives 'sgr'; otherwise the default X10-style bytes. */
  mouseEncoding: 'sgr' | 'default';
}

const ESC = '\x1b';
/** The bytes a key becomes for the pane: cursor keys follow its DECCKM, the rest go as typed. */
export function encodeKey(event: KeyEvent, modes: Pick<PaneModes, 'applicationCursorKeys'>): string {
  const { sequence } = event;
  // Unmodified arrows, Home and End come as CSI or SS3 and one letter: the form DECCKM chooses.
  const cursorKey = sequence.length === 3 && sequence[0] === ESC && (sequence[1] === '[' || sequence[1] === 'O') && 'ABCDHF'.includes(sequence[2]);
  if (cursorKey) return `${ESC}${modes.applicationCursorKeys ? 'O' : '['}${sequence[2]}`;
  return sequence;
}

/** Focus in or out for the pane, or null when it did not ask for focus reports. */
export function encodeFocus(focused: boolean, modes: Pick<PaneModes, 'sendFocus'>): string | null {
  if (!modes.sendFocus) return null;
  return focused ? `${ESC}[I` : `${ESC}[O`;
}

const BUTTON_CODES: Record<MouseButton, number> = {
  left: 0,
  middle: 1,
  right: 2,
  none: 3,
  'wheel-up': 64,
  'wheel-down': 65,
  'wheel-left': 66,
  'wheel-right': 67,
  button8: 128,
  button9: 129,
  button10: 130,
  button11: 131,
};
// The default encoding carries each value as one character 32 + value; past '~' it would need
// bytes above 0x7f, which a text channel (UTF-8) cannot carry as single bytes.
const MAX_DEFAULT_VALUE = 0x7e - 32;

/** Whether a program in this tracking mode wants the event (xterm's rules). */
function wanted(event: MouseEvent, tracking: MouseTracking): boolean {
  switch (tracking) {
    case 'none':
      return false;
    case 'x10':
      return event.action === 'press';
    case 'vt200':
      return event.action !== 'drag' && event.action !== 'move';
    case 'drag':
      return event.action !== 'move';
    case 'any':
      return true;
  }
}

/**
 * The report of a mouse event for the pane whose terminal is `content` (grid coordinates), in the
 * program's tracking mode and encoding; null when it asked for no such event or the default
 * encoding cannot carry it. Positions outside the pane are clamped to its edge, so a drag that
 * leaves the pane keeps reporting.
 */
export function encodeMouse(event: MouseEvent, content: Rect, modes: Pick<PaneModes, 'mouseTracking' | 'mouseEncoding'>): string | null {
  if (!wanted(event, modes.mouseTracking) || content.width < 1 || content.height < 1) return null;
  const column = Math.min(content.width, Math.max(1, event.x - content.x));
  const row = Math.min(content.height, Math.max(1, event.y - content.y));
  let code = BUTTON_CODES[event.button];
  if (event.action === 'drag' || event.action === 'move') code += 32;
  // X10 mode reports no modifiers.
  if (modes.mouseTracking !== 'x10') code += (event.shift ? 4 : 0) + (event.alt ? 8 : 0) + (event.ctrl ? 16 : 0);
  if (modes.mouseEncoding === 'sgr') return `${ESC}[<${code};${column};${row}${event.action === 'release' ? 'm' : 'M'}`;
  // The default encoding cannot say which button was released.
  if (event.action === 'release') code = (code & ~3 & ~(64 | 128)) | 3;
  if (code > MAX_DEFAULT_VALUE || column > MAX_DEFAULT_VALUE || row > MAX_DEFAULT_VALUE) return null;
  return `${ESC}[M${String.fromCharCode(32 + code, 32 + column, 32 + row)}`;
}
