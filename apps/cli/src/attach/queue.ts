import type { KeyEvent } from '@paneflow/screen';
import { displayText } from '@paneflow/view';
import type { Mode } from './frame';

/** The queue prompt (prefix q): a line typed for one pane, queued there with `queue.add` on Enter. */
export type QueueMode = Extract<Mode, { kind: 'queue' }>;

/** What a key did at the prompt: the mode that follows, or the text to queue. */
export type QueueStep = { mode: Mode } | { queue: string } | null;

/** A key at the queue prompt: typed text, Backspace, Enter queues (nothing when empty), Esc cancels. */
export function queueKey(mode: QueueMode, event: KeyEvent): QueueStep {
  if (event.name === 'escape' || event.name === 'ctrl-c') return { mode: { kind: 'normal' } };
  if (event.name === 'enter') return mode.text.trim() === '' ? { mode: { kind: 'normal' } } : { queue: mode.text };
  if (event.name === 'backspace') return { mode: { ...mode, text: [...mode.text].slice(0, -1).join('') } };
  // eslint-disable-next-line no-control-regex -- a control key is not text to queue
  if (event.sequence.length >= 1 && !/[\x00-\x1f\x7f]/.test(event.sequence)) return { mode: { ...mode, text: mode.text + event.sequence } };
  return null;
}

/**
 * The prompt as the status line shows it, its end in view however long the line: `queue for lead:
 * run the tests▏`, cleaned by `displayText` (a paste may hold controls; they are shown, not run).
 */
export function queuePromptText(mode: QueueMode, width: number): string {
  const head = ` queue for ${displayText(mode.label)}: `;
  const room = Math.max(1, width - [...head].length - 2);
  const chars = [...displayText(mode.text)];
  const tail = chars.length > room ? `…${chars.slice(chars.length - room + 1).join('')}` : chars.join('');
  return `${head}${tail}▏`;
}

/** What `queue.add` answered, for the status line: queued behind others, or sent at once to an agent already idle. */
export function queuedNote(label: string, result: { item: { id: string; position: number }; sent_now: boolean }): string {
  return displayText(result.sent_now ? `${label}: sent now (it was idle)` : `${label}: queued ${result.item.id}, number ${result.item.position} in line`);
}
