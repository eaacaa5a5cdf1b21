// What the page tells you in passing, at the bottom right: why a pane was not closed or opened,
// a worktree that closing kept, an answer serve refused. Each goes away by itself.
import { displayText } from '@paneflow/view';
import { el } from './dom';

const SHOWN_MS = 8000;

export class Notices {
  readonly element = el('div', 'notices');

  say(message: string): void {
    const item = el('div', 'notice', displayText(message));
    this.element.append(item);
    setTimeout(() => item.remove(), SHOWN_MS);
  }
}
