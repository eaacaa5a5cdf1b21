// Answering a waiting agent from the page, at a desktop's size (a strip under the pane's header)
// and on a phone (above the key row): serve's inbox, read when the waits change, and a box of the
// answers the agent's runtime knows (its `[answers]`), sent with `surface.answer` at the wait's
// `state_seq`, so serve refuses an answer to an agent that has moved on. The inbox holds every
// machine's waits (issue 32): another machine's agent is answered the same way, through its serve
// (`machine` in the request), and its items are told apart by (machine, surface_id).
import type { InboxItem } from '@paneflow/protocol/status';
import type { AutoAnswer } from '@paneflow/protocol/supervisor';
import { displayText, paneKey, rowMark, type PaneStatus } from '@paneflow/view';
import type { PaneflowApi } from '../api';
import { el } from './dom';

const capital = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

/** `fleet.inbox`, kept: read again only when who waits, or a wait's status revision, changed. */
export class InboxReader {
  items: InboxItem[] = [];
  /** What answer rules answered in the last hour, newest first as serve lists them (absent from a serve without rules). */
  answered: AutoAnswer[] = [];
  /** The waits the items were read for; null to read again whatever they are. */
  private readFor: string | null = null;
  private reading: Promise<void> | null = null;

  constructor(
    private readonly api: PaneflowApi,
    /** Every agent's status, this machine's and the others' (whose `machine` names theirs). */
    private readonly statuses: () => Array<PaneStatus & { machine?: string | null }>,
    /** Run once a read has come back (the faces draw its items). */
    private readonly onRead: () => void,
  ) {}

  /** Reads the inbox if the picture's waits (or its latest automatic answers) differ from those it was read for. */
  refresh(): void {
    const statuses = this.statuses();
    const waits = [
      ...statuses.filter((s) => rowMark(s) === 'need_you').map((s) => `${paneKey(s.machine, s.surface_id)}:${s.revision}`),
      ...statuses.filter((s) => s.supervision?.auto_answer).map((s) => `${paneKey(s.machine, s.surface_id)}@${s.supervision!.auto_answer!.at_ms}`),
    ].join(',');
    if (waits === this.readFor || this.reading) return;
    this.readFor = waits;
    this.reading = (this.api.request('fleet.inbox') as Promise<{ items: InboxItem[]; answered?: AutoAnswer[] }>)
      .then(
        ({ items, answered }) => {
          this.items = items;
          this.answered = answered ?? [];
        },
        () => undefined,
      )
      .finally(() => {
        this.reading = null;
        this.onRead();
      });
  }

  /** Read again at the next refresh (an answer went out). */
  stale(): void {
    this.readFor = null;
  }

  /** The wait of a pane: this machine's (`machine` null) or another's. */
  waiting(surfaceId: number, machine: string | null = null): InboxItem | undefined {
    return this.items.find((item) => item.surface_id === surfaceId && (item.machine ?? null) === machine);
  }
}

/** The answers one waiting agent takes: its kind and message, a button per choice, a field where it takes text. */
export class AnswerBox {
  readonly element: HTMLElement;
  /** The wait drawn: redrawn only when it changes, so a half-typed answer stays. */
  private drawnFor = '';
  private answering = false;
  private item: InboxItem | undefined;

  constructor(
    private readonly api: PaneflowApi,
    private readonly inbox: InboxReader,
    className: string,
    /** Says why an answer did not go (the agent moved on, serve refused). */
    private readonly say: (message: string) => void,
  ) {
    this.element = el('div', className);
    this.element.hidden = true;
  }

  /** Draws the answers for `item` (nothing when no agent waits). */
  draw(item: InboxItem | undefined): void {
    this.item = item;
    const drawFor = item ? `${paneKey(item.machine, item.surface_id)}:${item.state_seq}:${this.answering}` : '';
    if (drawFor === this.drawnFor) return;
    this.drawnFor = drawFor;
    this.element.replaceChildren();
    this.element.hidden = !item;
    if (!item) return;
    this.element.dataset.surface = String(item.surface_id);
    if (item.machine) this.element.dataset.machine = item.machine;
    else delete this.element.dataset.machine;
    this.element.append(el('div', 'message', displayText([item.kind, item.message].filter((p) => p).join(' · ') || 'waiting for input')));
    if (!item.answers) {
      this.element.append(el('div', 'hint', 'Its runtime names no answers: answer in the terminal.'));
      return;
    }
    const buttons = el('div', 'buttons');
    for (const choice of item.answers.choices) {
      const button = el('button', 'answer', capital(choice));
      button.dataset.answer = choice;
      button.disabled = this.answering;
      button.onclick = () => void this.answer(item, choice);
      buttons.append(button);
    }
    this.element.append(buttons);
    if (item.answers.text) {
      const form = el('form', 'text-answer');
      const field = el('input') as HTMLInputElement;
      field.placeholder = 'Answer';
      form.append(field, el('button', 'answer', 'Send'));
      form.onsubmit = (event) => {
        event.preventDefault();
        if (field.value) void this.answer(item, field.value);
      };
      this.element.append(form);
    }
  }

  private async answer(item: InboxItem, answer: string): Promise<void> {
    this.answering = true;
    this.draw(this.item);
    try {
      // Another machine's agent is answered by its own serve, under its gates.
      const target = item.machine ? { machine: item.machine } : {};
      const outcome = await this.api.settle('surface.answer', { surface_id: item.surface_id, ...target, answer, state_seq: item.state_seq });
      if ('error' in outcome) this.say(outcome.error.reason === 'not_waiting' ? 'It has moved on: nothing was typed.' : outcome.error.message);
    } finally {
      this.answering = false;
      this.inbox.stale();
      this.draw(this.item);
      this.inbox.refresh();
    }
  }
}
