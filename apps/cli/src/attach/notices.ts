import type { Presentation } from '@paneflow/protocol/events';
import type { NoticeKind } from '@paneflow/protocol/status';
import { noticeText } from '@paneflow/view';

/** The notices attach raises: an agent that needs you, and each of the supervisor's (a finished turn or an error it leaves to the sidebar). */
const NOTIFIED = new Set<NoticeKind>(['needs_input', 'answered_by_rule', 'stalled', 'usage_limit', 'queue_held', 'continue_not_started']);

/** Whether attach raises a notice of this kind, as the config says of it now. */
export const notified = (presentation: Presentation, kind: NoticeKind): boolean => presentation.attach.notifications && NOTIFIED.has(kind);

/** A notice as attach raises it: the terminal's notification, and the status line's note. */
export interface NoticeWords {
  title: string;
  body: string;
  note: string;
}

/**
 * A notice worded as every face words it (`Needs input: builder on devbox`), the pane's machine
 * named when it is not this one; a terminal's notification cannot be clicked, so the note names
 * the prefix's `a`, which goes to an agent that needs you on any machine.
 */
export function noticeWords(notice: { kind: NoticeKind; body: string | null }, pane: string, workspace: string | undefined, machine: string | null, prefixName: string): NoticeWords {
  const { title, body } = noticeText(notice.kind, pane, workspace, notice.body, machine);
  return { title, body, note: notice.kind === 'needs_input' ? `${title} · ${prefixName} a goes there` : title };
}
