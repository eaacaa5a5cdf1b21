// The supervisor on the page (libs/protocol/src/supervisor.ts): its words under an agent — in the
// sidebar, the phone's lists and the pane header — worded by @paneflow/view as every face words
// them, the facts behind each in its tooltip; the Queue box, which keeps a prompt for an agent
// until its turn ends (`queue.add`) and shows serve's refusal as it came; and the slow clock that
// redraws words that age (`stalled 12m`) while any is on screen.
import type { AutoAnswer } from '@paneflow/protocol/supervisor';
import { clockText, displayText, supervisionAges, supervisionBadges, type PaneStatus } from '@paneflow/view';
import type { PaneflowApi } from '../api';
import { el } from './dom';

/** The supervisor's words for one agent, a badge each, or null when it saw nothing there. */
export function supervisionElement(status: PaneStatus | undefined, nowMs = Date.now()): HTMLElement | null {
  const badges = supervisionBadges(status?.supervision, nowMs);
  if (badges.length === 0) return null;
  const box = el('div', 'supervision');
  for (const badge of badges) {
    const item = el('span', `sup ${badge.tone}`, badge.text);
    item.dataset.kind = badge.kind;
    if (badge.detail) item.title = badge.detail;
    box.append(item);
  }
  return box;
}

/** An automatic answer as the phone's inbox lists it: `14:27 lead: answered 'yes' by rule 'tests'`, and what it answered. */
export function answeredElement(answer: AutoAnswer, label: string, nowMs = Date.now()): HTMLElement {
  const row = el('div', 'answered-item');
  row.dataset.surface = String(answer.surface_id);
  row.append(
    el('div', 'head', displayText(`${clockText(answer.at_ms, nowMs)} ${label}: answered '${answer.answer}' by rule '${answer.rule}'`)),
    el('div', 'message', displayText(answer.message)),
  );
  return row;
}

/**
 * Redraws the words that age, every `AGEING_TICK_MS`, only while the picture holds any (a stall,
 * a limit, an automatic answer, a machine's link that is not connected): a page with none has no timer.
 */
const AGEING_TICK_MS = 10_000;
export class AgeingClock {
  private timer: ReturnType<typeof setInterval> | null = null;

  constructor(private readonly redraw: () => void) {}

  /** `alsoAges`: other words on screen age too (a machine's link `as of 2m ago`). */
  follow(statuses: Iterable<PaneStatus>, alsoAges = false): void {
    const ageing = alsoAges || [...statuses].some((status) => supervisionAges(status.supervision));
    if (ageing && !this.timer) this.timer = setInterval(this.redraw, AGEING_TICK_MS);
    else if (!ageing && this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }
}

/**
 * The Queue box: a prompt for one agent, kept by serve until the agent's declared turn ends (sent
 * at once to one already idle). One at a time, on top of the page; Escape or Cancel closes it.
 * What serve refused (the scripting gate off, a full queue, an ended agent) stays in the box,
 * with the text, so nothing typed is lost.
 */
export class QueueBox {
  readonly element = el('form', 'queue-box');
  private readonly heading = el('div', 'queue-title');
  private readonly field = el('textarea', 'queue-text') as HTMLTextAreaElement;
  private readonly refusal = el('div', 'queue-refusal');
  private readonly send = el('button', 'queue-send', 'Queue');
  private surfaceId: number | null = null;
  /** The agent's machine, null for this one: a far agent's prompt is kept by its own serve. */
  private machine: string | null = null;
  private label = '';

  constructor(
    private readonly api: PaneflowApi,
    /** Says what became of a queued prompt, once the box has closed. */
    private readonly say: (message: string) => void,
  ) {
    const cancel = el('button', 'queue-cancel', 'Cancel');
    cancel.type = 'button';
    cancel.onclick = () => this.close();
    const buttons = el('div', 'buttons');
    buttons.append(this.send, cancel);
    this.field.rows = 3;
    this.field.placeholder = 'Sent when its turn ends';
    this.field.setAttribute('aria-label', 'The prompt to queue');
    this.element.append(this.heading, this.field, this.refusal, buttons);
    this.element.hidden = true;
    this.element.onsubmit = (event) => {
      event.preventDefault();
      void this.submit();
    };
    this.element.onkeydown = (event) => {
      if (event.key === 'Escape') this.close();
      // Ctrl+Enter queues, as a chat box sends; Enter alone is a new line of the prompt.
      if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        void this.submit();
      }
    };
  }

  /** Opens the box for an agent (of `machine`, or this one), in place of one open for any other. */
  open(surfaceId: number, label: string, machine: string | null = null): void {
    if (this.surfaceId !== surfaceId || this.machine !== machine) this.field.value = '';
    this.surfaceId = surfaceId;
    this.machine = machine;
    this.label = displayText(label);
    this.element.dataset.surface = String(surfaceId);
    if (machine) this.element.dataset.machine = machine;
    else delete this.element.dataset.machine;
    this.heading.textContent = `Queue a prompt for ${this.label}`;
    this.refusal.textContent = '';
    this.element.hidden = false;
    this.field.focus();
  }

  close(): void {
    this.element.hidden = true;
    this.surfaceId = null;
  }

  private async submit(): Promise<void> {
    const surfaceId = this.surfaceId;
    const text = this.field.value;
    if (surfaceId === null || text.trim() === '') return;
    this.send.disabled = true;
    try {
      const outcome = await this.api.settle('queue.add', { surface_id: surfaceId, ...(this.machine ? { machine: this.machine } : {}), text });
      if ('error' in outcome) {
        this.refusal.textContent = displayText(`Not queued: ${outcome.error.message}`);
        return;
      }
      const { item, sent_now } = outcome.result as { item: { id: string; position: number }; sent_now: boolean };
      this.field.value = '';
      this.close();
      this.say(sent_now ? `Sent to ${this.label} now: it was idle.` : `Queued for ${this.label} (${item.id}, number ${item.position} in line).`);
    } finally {
      this.send.disabled = false;
    }
  }
}

/** A button that opens the Queue box for an agent (`open`); inside a row, it does not also click the row. */
export function queueButton(open: () => void, className = 'queue-button'): HTMLButtonElement {
  const button = el('button', className, 'Queue');
  button.type = 'button';
  button.title = 'Queue a prompt: sent when this agent’s turn ends';
  button.onclick = (event) => {
    event.stopPropagation();
    open();
  };
  return button;
}
