// Text that programs, hooks and people gave Paneflow, as every face shows it: pane and workspace
// names, titles, declared messages, hook notifications and results.
import { selectorKind } from '@paneflow/protocol/selectors';
import type { NoticeKind } from '@paneflow/protocol/status';
import { sanitizeForGrid } from '@paneflow/screen';

/**
 * Untrusted text made safe to show: bidi controls and invisible format characters removed
 * (OSC7501.md §11.2), C0 controls and DEL in caret notation (`^[`, `^G`, `^M`, `^?`), C1 controls,
 * the line and paragraph separators and lone surrogates U+FFFD. The one rule of every face; it is the grid's (`sanitizeForGrid`),
 * so `paneflow attach` draws exactly what the CLI, the desktop and the MCP bridge show.
 */
export function displayText(text: string): string {
  return sanitizeForGrid(text);
}

/** The characters of a caller's text an error quotes back at most. */
export const ECHO_MAX_CHARS = 80;

/**
 * A caller's text as an error quotes it: shown as `displayText` shows it and, when longer than
 * `max` characters, cut there with an ellipsis and its whole length (`abc… (2097152 characters)`),
 * so a request of megabytes is not answered with them.
 */
export function echoText(text: string, max = ECHO_MAX_CHARS): string {
  let head = '';
  let count = 0;
  for (const char of text) if (count++ < max) head += char;
  return count <= max ? displayText(text) : `${displayText(head)}… (${count} characters)`;
}

/**
 * What a selector that names no pane is told, in every face (serve's `no_match`, and a client's
 * own for a selector too long to ask about): the rule it was read by, quoted by `echoText`.
 */
export function noMatchText(selector: string, inWorkspace: boolean): string {
  const where = inWorkspace ? ' in this workspace' : '';
  return selectorKind(selector).kind === 'surface_id' ? `no pane with surface id ${echoText(selector)}${where}` : `no pane matches '${echoText(selector)}'${where}`;
}

// Whether `displayText` leaves a character as it is, per character met (a face meets few; text
// made to meet every one starts the memo again past KEPT_AS_IS_MAX, so it stays small).
const keptAsIs = new Map<string, boolean>();
const KEPT_AS_IS_MAX = 4096;
const unicodeEscape = (char: string) => char.split('').map((unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');

/**
 * JSON as a face prints it: `JSON.stringify`'s, with each character `displayText` would change that
 * JSON leaves raw (DEL, C1 controls, U+2028 and U+2029, bidi controls, invisible format
 * characters) written as a `\u` escape: the same data for a program, inert on a terminal.
 */
export function jsonText(value: unknown, indent?: number): string {
  return JSON.stringify(value, null, indent).replace(/[\u007f-\u{10ffff}]/gu, (char) => {
    let kept = keptAsIs.get(char);
    if (kept === undefined) {
      if (keptAsIs.size >= KEPT_AS_IS_MAX) keptAsIs.clear();
      keptAsIs.set(char, (kept = displayText(char) === char));
    }
    return kept ? char : unicodeEscape(char);
  });
}

/** A notification's title and body, each cleaned by `displayText`. */
const NOTICE_REASON: Record<NoticeKind, string> = {
  needs_input: 'Needs input',
  finished: 'Finished',
  error: 'Error',
  answered_by_rule: 'Answered by rule',
  stalled: 'Stalled',
  usage_limit: 'Usage limit',
  queue_held: 'Queue held',
  continue_not_started: 'Continue did not start',
};

/**
 * A notification as every face words it: the reason, the pane and its workspace in the title
 * (`Needs input: api in backend`), and another machine's name (`… on devbox`), the agent's message
 * as the body; both cleaned by `displayText`.
 */
export function noticeText(kind: NoticeKind, pane: string, workspace: string | undefined, body: string | null, machine?: string | null): { title: string; body: string } {
  const where = `${workspace ? ` in ${workspace}` : ''}${machine ? ` on ${machine}` : ''}`;
  return { title: displayText(`${NOTICE_REASON[kind]}: ${pane}${where}`), body: displayText(body ?? '') };
}
