import { answerDeadlineMs, PublicMethods, splitMachineSelector, type MethodName } from '@paneflow/protocol';
import type { Handler, Handlers } from '@paneflow/rpc';
import type { Machines } from './machines';

/** Methods whose `machine` narrows a list (every machine's rows are here, or asked by the method itself); every other `machine` is a target. */
const LISTS = new Set<string>(['fleet.list', 'fleet.inbox', 'session.list', 'surface.list', 'fleet.digest']);

/** The methods that take a routed target: a `machine` in their params, and neither a list nor one of `machine.*` (whose `machine` is their subject). */
export const ROUTED_METHODS = (Object.keys(PublicMethods) as MethodName<PublicMethods>[]).filter(
  (name) => !LISTS.has(name) && !name.startsWith('machine.') && 'machine' in ((PublicMethods[name].params as { properties?: object }).properties ?? {}),
);

/** The answer of another machine, its panes and statuses marked with their machine. */
function stamped(result: unknown, machine: string): unknown {
  if (typeof result !== 'object' || result === null) return result;
  const answer = result as Record<string, unknown>;
  if (Array.isArray(answer.surfaces)) return { ...answer, surfaces: answer.surfaces.map((entry: object) => ({ ...entry, machine })) };
  if ('surface_id' in answer && 'state_seq' in answer && 'session' in answer) return { ...answer, machine };
  return answer;
}

/**
 * Serve's handlers with the routed methods carried to another machine when asked (issue 32): a
 * `machine` in the params, or a selector in the compact form `@NAME:SELECTOR`. The far serve
 * answers under its own gates: this side adds none and can widen none. Without a machine the
 * method is this serve's, as before.
 */
export function routed(handlers: Handlers<PublicMethods>, machines: Machines): Handlers<PublicMethods> {
  const wrapped: Record<string, Handler<PublicMethods, MethodName<PublicMethods>>> = { ...(handlers as Record<string, Handler<PublicMethods, MethodName<PublicMethods>>>) };
  for (const name of ROUTED_METHODS) {
    const local = wrapped[name];
    if (!local) continue;
    wrapped[name] = (params, context) => {
      const { machine, ...rest } = params as { machine?: string; selector?: string };
      const compact = name === 'surface.resolve' && machine === undefined && typeof rest.selector === 'string' ? splitMachineSelector(rest.selector) : null;
      const target = machine ?? compact?.machine;
      if (target === undefined) return local(rest as never, context);
      const forwarded = compact ? { ...rest, selector: compact.selector } : rest;
      // As long as that serve may take (a wait of its own on top), then its answer marked as its.
      const deadline = answerDeadlineMs(name) + ((rest as { timeout_ms?: number }).timeout_ms ?? 0);
      return machines.forward(target, name, forwarded, deadline).then((result) => stamped(result, target)) as never;
    };
  }
  return wrapped as Handlers<PublicMethods>;
}
