// attach's queue prompt (prefix q) as data: its keys, and its line on the status line, whose end
// stays in view however long the text and whose controls are shown, not run.
import type { KeyEvent } from '@paneflow/screen';
import { queuedNote, queueKey, queuePromptText, type QueueMode } from '../src/attach/queue';

const mode = (text: string): QueueMode => ({ kind: 'queue', surfaceId: 4, label: 'lead', text });
const key = (name: string, sequence = name): KeyEvent => ({ type: 'key', name, sequence }) as KeyEvent;

test('typing, Backspace (a whole character), Enter queues, Enter on nothing and Esc leave', () => {
  expect(queueKey(mode('ru'), key('n'))).toEqual({ mode: mode('run') });
  expect(queueKey(mode('go 🚀'), key('backspace', '\x7f'))).toEqual({ mode: mode('go ') });
  expect(queueKey(mode('run the tests'), key('enter', '\r'))).toEqual({ queue: 'run the tests' });
  expect(queueKey(mode('  '), key('enter', '\r'))).toEqual({ mode: { kind: 'normal' } });
  expect(queueKey(mode('x'), key('escape', '\x1b'))).toEqual({ mode: { kind: 'normal' } });
  expect(queueKey(mode('x'), key('ctrl-c', '\x03'))).toEqual({ mode: { kind: 'normal' } });
  expect(queueKey(mode('x'), key('up', '\x1b[A'))).toBeNull();
});

test('the prompt line keeps its end in view and shows controls as text', () => {
  expect(queuePromptText(mode('run it'), 80)).toBe(' queue for lead: run it▏');
  const long = queuePromptText(mode(`${'a'.repeat(100)}END`), 40);
  expect([...long].length).toBeLessThanOrEqual(40);
  expect(long).toMatch(/^ queue for lead: …a+END▏$/);
  expect(queuePromptText({ ...mode('a\x1b[2Jb'), label: 'le\x07ad' }, 80)).toBe(' queue for le^Gad: a^[[2Jb▏');
});

test("what serve's answer says", () => {
  expect(queuedNote('lead', { item: { id: 'q3', position: 2 }, sent_now: false })).toBe('lead: queued q3, number 2 in line');
  expect(queuedNote('lead', { item: { id: 'q4', position: 1 }, sent_now: true })).toBe('lead: sent now (it was idle)');
});
