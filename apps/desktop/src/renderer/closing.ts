// When a pane, or a workspace's every pane, closes: by REFERENCE §1.4's policy, at once when
// nothing runs there; when serve says one needs confirmation (an agent in its turn, a shell running
// a program) only after you confirm; when the host does not answer, after you confirm a warning
// that nothing can be stopped. What closing left behind (a worktree kept) is said afterwards.
import { asksToClose } from '@paneflow/protocol/errors';
import type { WorktreeTeardown } from '@paneflow/protocol/public-protocol';
import { displayText, type Picture } from '@paneflow/view';
import type { PaneflowApi } from '../api';
import { el } from './dom';

/** A workspace by id: the same one however others come and go while you decide. */
export type CloseTarget = { pane: number } | { workspace: string };

export class Closer {
  constructor(
    private readonly api: PaneflowApi,
    private readonly picture: Picture,
    private readonly say: (message: string) => void,
  ) {}

  async close(target: CloseTarget): Promise<void> {
    const request = (options: { unless_busy?: true }) =>
      'pane' in target ? this.api.settle('surface.close', { surface_id: target.pane, ...options }) : this.api.settle('workspace.close', { workspace_id: target.workspace, ...options });
    const first = await request({ unless_busy: true });
    let outcome = first;
    if ('error' in first) {
      if (!asksToClose(first.error.reason)) return this.say(`Not closed: ${first.error.message}`);
      const name = 'workspace' in target ? this.picture.workspaces.find((w) => w.id === target.workspace)?.name : undefined;
      const what = name === undefined ? '' : `Close the workspace ${name}? `;
      if (!(await confirm(what + first.error.message, first.error.reason!))) return;
      outcome = await request({});
      if ('error' in outcome) return this.say(`Not closed: ${outcome.error.message}`);
    }
    const { worktrees } = (outcome as { result: { worktrees: WorktreeTeardown[] } }).result;
    for (const kept of worktrees.filter((w) => !w.removed)) this.say(`Worktree kept: ${kept.path}${kept.reason ? ` (${kept.reason})` : ''}`);
  }
}

/** An in-page question with Close and Cancel, marked with serve's reason; Escape cancels. Resolves true on Close. */
function confirm(message: string, reason: string): Promise<boolean> {
  document.querySelector('.confirm')?.remove();
  const focused = document.activeElement as HTMLElement | null;
  const dialog = el('div', 'confirm');
  dialog.dataset.reason = reason;
  dialog.setAttribute('role', 'alertdialog');
  const text = el('p', 'message', displayText(message));
  const cancel = el('button', 'cancel', 'Cancel');
  const close = el('button', 'confirm-close', 'Close');
  const buttons = el('div', 'buttons');
  buttons.append(cancel, close);
  dialog.append(text, buttons);
  document.body.append(dialog);
  close.focus();
  return new Promise((resolve) => {
    const answer = (yes: boolean) => {
      dialog.remove();
      if (!yes && focused?.isConnected) focused.focus();
      resolve(yes);
    };
    close.onclick = () => answer(true);
    cancel.onclick = () => answer(false);
    dialog.addEventListener('keydown', (event) => {
      if (event.key !== 'Escape') return;
      event.preventDefault();
      answer(false);
    });
  });
}
