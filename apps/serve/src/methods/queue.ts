import type { MethodFamily } from './parts';

/** `queue.*`: prompts kept until a pane's agent ends its turn (supervisor/queue.ts); the writes need the scripting gate. */
export const queueMethods: MethodFamily = ({ queue }) => ({
  'queue.add': (params) => queue.add(params),
  'queue.list': (params) => queue.list(params),
  'queue.remove': (params) => queue.remove(params),
  'queue.move': (params) => queue.move(params),
  'queue.send_now': (params) => queue.sendNow(params),
});
