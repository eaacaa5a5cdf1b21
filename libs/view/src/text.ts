// Text that programs, hooks and people gave Paneflow, as every face shows it: pane and workspace
// names, titles, declared messages, hook notifications and results.
import type { NoticeKind } from '@paneflow/protocol/status';
import { sanitizeForGrid } from '@paneflow/screen';

/**
 * Untrusted text made safe to show: bidi controls and invisible format characters removed
 * (OSC7501.md §11.2), C0 controls and DEL in caret notation (`^[`, `^G`, `^M`, `^?`), C1 controls
 * and lone surrogates U+FFFD. The one rule of every face; it is the grid's (`sanitizeForGrid`),
 * so `paneflow attach` draws exactly what the CLI, the desktop and the MCP bridge show.
 */
export function displayText(text: string): string {
  return sanitizeForGrid(text);
}

/** A notification's title and body, each cleaned by `displayText`. */
const NOTICE_REASON: Record<NoticeKind, string> = { needs_input: 'Needs input', finished: 'Finished', error: 'Error' };

/**
 * A notification as every face words it: the reason, the pane and its workspace in the title
 * (`Needs input: api in backend`), the agent's message as the body; both cleaned by `displayText`.
 */
export function noticeText(kind: NoticeKind, pane: string, workspace: string | undefined, body: string | null): { title: string; body: string } {
  return { title: displayText(`${NOTICE_REASON[kind]}: ${pane}${workspace ? ` in ${workspace}` : ''}`), body: displayText(body ?? '') };
}
