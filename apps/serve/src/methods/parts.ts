import type { PublicMethods } from '@paneflow/protocol';
import type { Handlers } from '@paneflow/rpc';
import type { ServeContext } from '../context';
import type { HookIntake } from '../hooks';
import type { Machines } from '../machines/machines';
import type { Panes } from '../panes';
import type { Readiness } from '../prompts';
import type { Restorer } from '../restore';
import type { Sending } from '../sending';
import type { AnswerRules } from '../supervisor/rules';
import type { Reduction } from '../status';
import type { PromptQueue } from '../supervisor/queue';
import type { Workspaces } from '../workspaces';

/** The parts of serve that its methods use, wired together by serve.ts. */
export interface Parts {
  ctx: ServeContext;
  reduction: Reduction;
  readiness: Readiness;
  workspaces: Workspaces;
  panes: Panes;
  sending: Sending;
  queue: PromptQueue;
  hooks: HookIntake;
  restorer: Restorer;
  rules: AnswerRules;
  machines: Machines;
  shutdown(drainMs: number): void;
}

/** One family of methods. */
export type MethodFamily = (parts: Parts) => Handlers<PublicMethods>;
