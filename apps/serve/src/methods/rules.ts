import { invalid } from '../errors';
import type { MethodFamily } from './parts';

/** `rules.*` (additions): the answer rules, which one would answer a message, and the switch for them all. */
export const ruleMethods: MethodFamily = ({ ctx, rules }) => ({
  'rules.list': () => ({ enabled: rules.store.enabled, gated: !rules.gateOpen(), delay_ms: ctx.config.current.supervisor.answer_delay_ms, rules: rules.list(ctx.clock.now()) }),
  'rules.test': ({ message, runtime_id }) => {
    if (runtime_id !== undefined && !ctx.catalog.bySlug.has(runtime_id)) throw invalid(`unknown runtime '${runtime_id}'; it is one of ${[...ctx.catalog.bySlug.keys()].join(', ')}`, 'unknown_runtime', 'runtime_id');
    const { rule, reason } = rules.verdict(message, runtime_id ?? null, ctx.clock.now());
    return { rule: rule?.name ?? null, answer: rule?.answer ?? null, reason };
  },
  // Answered once it is on disk: `rules off` must outlive a serve killed the moment it answered.
  'rules.set_enabled': ({ enabled }) => {
    rules.setEnabled(enabled);
    return { enabled };
  },
});
