import { DEFAULT_LAYOUT } from '@paneflow/protocol';
import Type, { type Static } from 'typebox';
import { locate, SpecError, type Problem } from './problems';
import { parseToml } from './toml';
import { references, substitute } from './variables';
import {
  crossPaneProblems,
  MAX_PANES,
  PaneFields,
  resolvePane,
  schemaProblems,
  WorkspaceFields,
  workspaceNameProblems,
  type Layout,
  type PanePlan,
  type PaneSpec,
  type SpecHost,
} from './workspace';

const closed = { additionalProperties: false } as const;
export const MAX_CAPTURE_LINES = 500;

const StepSpec = Type.Object(
  {
    id: Type.String({ minLength: 1 }),
    needs: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
    foreach: Type.Optional(Type.Array(Type.String())),
    pane: Type.Optional(Type.Object(PaneFields, closed)),
    send: Type.Optional(Type.Object({ target: Type.String({ minLength: 1 }), text: Type.String(), submit: Type.Optional(Type.Boolean()) }, closed)),
    ready: Type.Optional(Type.Object({ pattern: Type.String({ minLength: 1 }), timeout_secs: Type.Optional(Type.Integer({ minimum: 1 })) }, closed)),
    capture: Type.Optional(Type.Object({ var: Type.String(), lines: Type.Integer() }, closed)),
    submit: Type.Optional(Type.Boolean()),
  },
  closed,
);
type StepSpec = Static<typeof StepSpec>;

const FlowSpec = Type.Object(
  {
    ...WorkspaceFields,
    defaults: Type.Optional(
      Type.Object(
        {
          timeout_secs: Type.Optional(Type.Integer({ minimum: 1 })),
          on_failure: Type.Optional(Type.Union([Type.Literal('fail_fast'), Type.Literal('continue')])),
        },
        closed,
      ),
    ),
    step: Type.Optional(Type.Array(Type.Unknown())),
  },
  closed,
);

export interface StepPlan {
  /** The instance id: the step's id, or `<id>[<item>]` for each item of a foreach. */
  id: string;
  step: string;
  item: string | null;
  kind: 'pane' | 'send';
  /** Instance ids this waits for; a dependency on a foreach step means all its instances. */
  needs: string[];
  pane: PanePlan | null;
  /** A pane step submits its prompt (needs scripting). */
  submit: boolean;
  send: { target: string; text: string; submit: boolean } | null;
  ready: { pattern: string; timeout_secs: number } | null;
  /**
   * The step's timeout: `ready.timeout_secs`, else `defaults.timeout_secs`, else null. A send
   * step's wait for its target to be idle is bounded by it (REFERENCE.md §5.7).
   */
  timeout_secs: number | null;
  capture: { var: string; lines: number } | null;
}

export interface FlowPlan {
  name: string;
  layout: Layout;
  port_base: number;
  on_failure: 'fail_fast' | 'continue';
  steps: StepPlan[];
  /** True when any step submits: the flow needs the scripting capability, even for a dry run. */
  submits: boolean;
}

const ITEM_FIELDS = ['cwd', 'name', 'worktree', 'prompt'] as const;

/** Every cycle-free order, or the first cycle found, spelled out. */
function findCycle(ids: string[], needs: Map<string, string[]>): string[] | null {
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (id: string): string[] | null => {
    if (state.get(id) === 'done') return null;
    if (state.get(id) === 'open') return [...path.slice(path.indexOf(id)), id];
    state.set(id, 'open');
    path.push(id);
    for (const dep of needs.get(id) ?? []) {
      const cycle = visit(dep);
      if (cycle) return cycle;
    }
    path.pop();
    state.set(id, 'done');
    return null;
  };
  for (const id of ids) {
    const cycle = visit(id);
    if (cycle) return cycle;
  }
  return null;
}

function transitive(id: string, needs: Map<string, string[]>): Set<string> {
  const seen = new Set<string>();
  const stack = [...(needs.get(id) ?? [])];
  while (stack.length > 0) {
    const next = stack.pop()!;
    if (seen.has(next)) continue;
    seen.add(next);
    stack.push(...(needs.get(next) ?? []));
  }
  return seen;
}

/**
 * Parses and checks a flow spec (REFERENCE.md §5.5–§5.6) and expands it into step instances.
 * Every check runs before anything happens; all problems are thrown together as a SpecError.
 */
export function parseFlow(text: string, file: string, host: SpecHost): FlowPlan {
  const parsed = parseToml(text);
  if ('problem' in parsed) throw new SpecError(file, [parsed.problem]);
  const data = parsed.data as Record<string, unknown>;
  const problems: Problem[] = [...schemaProblems(FlowSpec, data, '', (field) => locate(text, null, 0, field)), ...workspaceNameProblems(data, text)];
  const rawSteps = Array.isArray(data.step) ? data.step : [];
  if (data.step === undefined) problems.push({ prefix: '', field: 'step', message: 'required: at least one [[step]]' });
  const defaults = (data.defaults ?? {}) as { timeout_secs?: number; on_failure?: 'fail_fast' | 'continue' };
  const specDir = file.includes('/') ? file.slice(0, file.lastIndexOf('/')) : host.cwd;
  const absoluteSpecDir = specDir.startsWith('/') ? specDir : `${host.cwd}/${specDir}`;

  // Shape of each step first; the checks across steps need valid steps.
  const steps: Array<{ spec: StepSpec; index: number; prefix: string; line: (f: string) => number | undefined }> = [];
  rawSteps.forEach((raw, index) => {
    const id = raw && typeof raw === 'object' && typeof (raw as { id?: unknown }).id === 'string' ? (raw as { id: string }).id : String(index + 1);
    const prefix = `step ${id}: `;
    const line = (field: string) => locate(text, 'step', index, field);
    const shape = schemaProblems(StepSpec, raw, prefix, line);
    problems.push(...shape);
    if (shape.length === 0) steps.push({ spec: raw as StepSpec, index, prefix, line });
  });

  const byId = new Map<string, StepSpec>();
  for (const { spec, prefix, line } of steps) {
    const problem = (field: string, message: string) => problems.push({ prefix, field, message, line: line(field.split('.')[0]) });
    if (/[[\]]/.test(spec.id)) problem('id', "an id may not hold '[' or ']'");
    if (byId.has(spec.id)) problem('id', `'${spec.id}' is the id of another step`);
    byId.set(spec.id, spec);
    if (spec.pane && spec.send) problem('', 'a step has pane or send, not both');
    if (!spec.pane && !spec.send) problem('', 'a step needs pane or send');
    if (spec.submit !== undefined && !spec.pane) problem('submit', 'submit belongs to a pane step (a send step has send.submit)');
    if (spec.send && (spec.needs ?? []).length === 0) problem('needs', 'a send step must depend on another step');
    if (spec.capture && !spec.ready) problem('capture', 'capture needs ready (it is taken when ready matches)');
    if (spec.capture) {
      if (!/^[A-Za-z0-9_]+$/.test(spec.capture.var)) problem('capture.var', `'${spec.capture.var}' is not a variable name ([A-Za-z0-9_]+)`);
      if (spec.capture.lines < 1 || spec.capture.lines > MAX_CAPTURE_LINES) problem('capture.lines', `expected 1 to ${MAX_CAPTURE_LINES}, got ${spec.capture.lines}`);
    }
    if (spec.ready && spec.ready.timeout_secs === undefined && defaults.timeout_secs === undefined) {
      problem('ready', 'a ready barrier needs a timeout: ready.timeout_secs, or defaults.timeout_secs');
    }
    if (spec.ready) {
      try {
        new RegExp(substitute(spec.ready.pattern, (r) => (r.name === 'item' ? 'x' : undefined)));
      } catch (error) {
        problem('ready.pattern', `not a valid regular expression: ${(error as Error).message}`);
      }
    }
    if (spec.foreach) {
      if (spec.foreach.length === 0) problem('foreach', 'needs at least one item');
      if (new Set(spec.foreach).size !== spec.foreach.length) problem('foreach', 'items must be unique');
      if (spec.foreach.some((i) => i === '')) problem('foreach', 'items must not be empty');
    }
  }
  // Dependencies: known, not the step itself, no cycle.
  const needs = new Map<string, string[]>();
  for (const { spec, prefix, line } of steps) {
    const deps: string[] = [];
    for (const dep of spec.needs ?? []) {
      if (dep === spec.id) problems.push({ prefix, field: 'needs', message: 'a step cannot depend on itself', line: line('needs') });
      else if (!byId.has(dep)) problems.push({ prefix, field: 'needs', message: `unknown step '${dep}'`, line: line('needs') });
      else deps.push(dep);
    }
    needs.set(spec.id, deps);
  }
  const cycle = findCycle([...byId.keys()], needs);
  if (cycle) problems.push({ prefix: '', field: 'step', message: `dependency cycle: ${cycle.join(' → ')}` });
  if (steps.length > 0 && !steps.some(({ spec }) => spec.pane && (spec.needs ?? []).length === 0)) {
    problems.push({ prefix: '', field: 'step', message: 'no root pane step: at least one pane step must need nothing' });
  }
  // Captures: unique, and used only where allowed and from a transitive dependency.
  const captures = new Map<string, StepSpec>();
  for (const { spec, prefix, line } of steps) {
    if (!spec.capture) continue;
    if (captures.has(spec.capture.var)) problems.push({ prefix, field: 'capture.var', message: `'${spec.capture.var}' is captured by step ${captures.get(spec.capture.var)!.id} too`, line: line('capture') });
    else captures.set(spec.capture.var, spec);
  }
  for (const { spec, prefix, line } of steps) {
    const problem = (field: string, message: string) => problems.push({ prefix, field, message, line: line(field.split('.')[0]) });
    const upstream = cycle ? new Set<string>() : transitive(spec.id, needs);
    const checkText = (field: string, value: string, capturesAllowed: boolean, itemAllowed: boolean) => {
      const { refs, unclosed } = references(value);
      if (unclosed) problem(field, "an unclosed '${'");
      for (const ref of refs) {
        if (ref.name === 'item' && ref.item === null) {
          if (!itemAllowed) problem(field, '${item} is only allowed in foreach steps');
          continue;
        }
        if (ref.name === 'port_offset' && ref.item === null) {
          problem(field, '${port_offset} is only allowed in env values');
          continue;
        }
        const producer = captures.get(ref.name);
        if (!producer) problem(field, `\${${ref.name}${ref.item !== null ? `.${ref.item}` : ''}} is not a capture of any step`);
        else if (!capturesAllowed) problem(field, `captures are only allowed in send.text and in the prompt of a submitting pane step`);
        else if (!upstream.has(producer.id)) problem(field, `\${${ref.name}} is captured by step ${producer.id}, which this step does not depend on`);
        else if (producer.foreach && ref.item === null) problem(field, `\${${ref.name}} comes from a foreach step: name the item, as \${${ref.name}.${producer.foreach[0]}}`);
        else if (producer.foreach && !producer.foreach.includes(ref.item!)) problem(field, `\${${ref.name}.${ref.item}}: step ${producer.id} has no item '${ref.item}'`);
        else if (!producer.foreach && ref.item !== null) problem(field, `\${${ref.name}.${ref.item}}: step ${producer.id} is not a foreach step`);
      }
    };
    const each = !!spec.foreach;
    if (spec.send) {
      checkText('send.target', spec.send.target, false, each);
      checkText('send.text', spec.send.text, true, each);
    }
    if (spec.pane?.prompt !== undefined) checkText('pane.prompt', spec.pane.prompt, !!spec.submit, each);
    if (spec.ready) checkText('ready.pattern', spec.ready.pattern, false, each);
  }

  const instances = steps.flatMap(({ spec }) => (spec.foreach ?? [null]).map((item) => ({ spec, item })));
  const paneCount = instances.filter((i) => i.spec.pane).length;
  if (paneCount > MAX_PANES) problems.push({ prefix: '', field: 'step', message: `more than ${MAX_PANES} panes after expanding foreach (${paneCount})` });

  // Panes: each instance's fields with ${item} in place, resolved like a workspace pane.
  const claimed = new Map<string, string>();
  const planned = new Map<string, PanePlan | null>();
  const paneChecks: Array<{ plan: PanePlan | null; spec: PaneSpec; prefix: string; line: (f: string) => number | undefined }> = [];
  if (problems.length === 0) {
    let index = 0;
    for (const { spec, item } of instances) {
      if (!spec.pane) continue;
      const id = item === null ? spec.id : `${spec.id}[${item}]`;
      const withItem = (value: string) => (item === null ? value : substitute(value, (r) => (r.name === 'item' && r.item === null ? item : undefined)));
      const pane: PaneSpec = { ...spec.pane };
      for (const field of ITEM_FIELDS) if (pane[field] !== undefined) pane[field] = withItem(pane[field]!);
      if (pane.env) pane.env = Object.fromEntries(Object.entries(pane.env).map(([k, v]) => [k, withItem(v)]));
      const source = steps.find((s) => s.spec === spec)!;
      const prefix = `step ${id}: pane.`;
      // Captures stay in the prompt until they are known: the runner fills them (fillCaptures).
      const plan = resolvePane(pane, ++index, { prefix, line: source.line, specDir: absoluteSpecDir, claimed }, host, problems);
      planned.set(id, plan);
      paneChecks.push({ plan, spec: pane, prefix, line: source.line });
    }
    problems.push(...crossPaneProblems(paneChecks));
  }
  if (problems.length > 0) throw new SpecError(file, problems);

  const instanceIds = (stepId: string) => {
    const spec = byId.get(stepId)!;
    return spec.foreach ? spec.foreach.map((item) => `${stepId}[${item}]`) : [stepId];
  };
  const stepPlans: StepPlan[] = instances.map(({ spec, item }) => {
    const id = item === null ? spec.id : `${spec.id}[${item}]`;
    const withItem = (value: string) => (item === null ? value : substitute(value, (r) => (r.name === 'item' && r.item === null ? item : undefined)));
    return {
      id,
      step: spec.id,
      item,
      kind: spec.pane ? 'pane' : 'send',
      needs: (spec.needs ?? []).flatMap(instanceIds),
      pane: planned.get(id) ?? null,
      submit: !!spec.submit,
      send: spec.send ? { target: withItem(spec.send.target), text: withItem(spec.send.text), submit: !!spec.send.submit } : null,
      ready: spec.ready ? { pattern: withItem(spec.ready.pattern), timeout_secs: spec.ready.timeout_secs ?? defaults.timeout_secs! } : null,
      timeout_secs: spec.ready?.timeout_secs ?? defaults.timeout_secs ?? null,
      capture: spec.capture ? { var: spec.capture.var, lines: spec.capture.lines } : null,
    };
  });
  return {
    name: (data.name as string | undefined) ?? 'Flow',
    layout: (data.layout as Layout | undefined) ?? DEFAULT_LAYOUT,
    port_base: (data.port_base as number | undefined) ?? 3000,
    on_failure: defaults.on_failure ?? 'fail_fast',
    steps: stepPlans,
    submits: stepPlans.some((s) => s.submit || s.send?.submit),
  };
}

/** Fills a step's text with the captures taken so far: `${var}` or `${var.item}`. */
export function fillCaptures(text: string, captures: ReadonlyMap<string, string | Record<string, string>>): string {
  return substitute(text, (ref) => {
    const value = captures.get(ref.name);
    if (value === undefined) return undefined;
    return typeof value === 'string' ? value : ref.item !== null ? value[ref.item] : undefined;
  });
}
